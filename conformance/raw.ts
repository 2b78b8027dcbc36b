/**
 * A request the contract's operations cannot describe (HEAD, a method a path does not serve),
 * sent through the client's one raw send (`Client.sendRaw`) and judged by its command.
 */
import type { Exchange } from './http.ts';
import type { World } from './world.ts';

/** Sends `method path` to the server under test; `label` names it in findings and the transcript. */
export function rawExchange(
  w: World,
  label: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Exchange> {
  return w.client.sendRaw(label, method, w.cfg.baseUrl.replace(/\/$/, '') + path, headers, body);
}

/** The concrete path of a path template, each `{name}` filled by `fill(name)` (percent-encoded). */
export function concretePath(template: string, fill: (name: string) => string): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(fill(name)));
}
