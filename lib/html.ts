/** HTML escaping shared by the checkout pages of the reference server and the generated docs. */

/** Escapes text for HTML element content and quoted attribute values (both quote kinds). */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}
