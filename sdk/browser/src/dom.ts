/**
 * Tiny DOM helpers. Styles are set through the CSSOM (`element.style.setProperty`), which a
 * strict Content-Security-Policy allows: no `style` attributes in markup, no `<style>`
 * elements, no inline script, no `eval`.
 */
export type Styles = Record<string, string>;

export function el<K extends keyof HTMLElementTagNameMap>(
  doc: Document,
  tag: K,
  options: { text?: string; styles?: Styles; attrs?: Record<string, string> } = {},
  children: Node[] = [],
): HTMLElementTagNameMap[K] {
  const node = doc.createElement(tag);
  if (options.text !== undefined) node.textContent = options.text;
  if (options.styles) applyStyles(node, options.styles);
  if (options.attrs) for (const [k, v] of Object.entries(options.attrs)) node.setAttribute(k, v);
  for (const c of children) node.appendChild(c);
  return node;
}

export function applyStyles(node: HTMLElement, styles: Styles): void {
  for (const [k, v] of Object.entries(styles)) node.style.setProperty(k, v);
}
