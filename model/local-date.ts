/**
 * ADR-007's date form, `DD/MM/YY HH:MM:SS` in UTC (A2's created_at/updated_at), read back. Pure:
 * the suite's A2 checks and the proxy's A2 judge read it the same way.
 */

/** `DD/MM/YY HH:MM:SS` read as UTC (20YY), or null when it is not that form or no such date. */
export function parseLocalDateTime(text: unknown): number | null {
  const m = typeof text === 'string' ? /^(\d{2})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text) : null;
  if (!m) return null;
  const [d, mo, y, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const t = Date.UTC(2000 + y, mo - 1, d, h, mi, s);
  const back = new Date(t);
  return back.getUTCDate() === d && back.getUTCMonth() === mo - 1 && back.getUTCHours() === h ? t : null;
}
