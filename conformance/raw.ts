/**
 * A request the contract's operations cannot describe (HEAD, a method a path does not serve),
 * sent with fetch and judged by its command. It is recorded in the transcript like the others,
 * so a finding's curl script replays it.
 */
import type { Exchange } from './http.ts';
import type { World } from './world.ts';

/** Sends `method path` to the server under test; `label` names it in findings and the transcript. */
export async function rawExchange(
  w: World,
  label: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Exchange> {
  const url = w.cfg.baseUrl.replace(/\/$/, '') + path;
  const sentAt = performance.now();
  w.client.requests++;
  const res = await fetch(url, { method, headers, body });
  const text = await res.text();
  const receivedAt = performance.now();
  const responseHeaders: Record<string, string> = {};
  res.headers.forEach((v, k) => (responseHeaders[k] = v));
  let json: unknown;
  try {
    json = text.length ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  const ex: Exchange = {
    opId: label,
    method,
    url,
    headers,
    body,
    status: res.status,
    responseHeaders,
    responseText: text,
    json,
    sentAt,
    receivedAt,
  };
  w.client.transcript.push(ex);
  return ex;
}

/** The concrete path of a path template, each `{name}` filled by `fill(name)` (percent-encoded). */
export function concretePath(template: string, fill: (name: string) => string): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(fill(name)));
}
