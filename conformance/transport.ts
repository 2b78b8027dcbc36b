/**
 * How the suite's client (`http.ts`) sends a request: one function, `Transport`, of the little it
 * uses of an exchange (status, headers, the whole body as text). The default, `undiciTransport`,
 * is undici's `request`: it sends the method, the headers and the body as the exchange records
 * them, and only those (undici adds the connection's own: `host`, `connection`, `content-length`),
 * and it follows no redirect, so a 3xx is the answer judged. The global `fetch` fits the type too
 * (tests inject fetch-shaped fakes), but it adds `accept`, `accept-language`, `sec-fetch-mode`,
 * `user-agent`, `accept-encoding` and a text/plain content type to what the exchange records, and
 * follows redirects; its web streams and WHATWG objects also cost ~0.5 ms CPU a request.
 */
import { Agent, request } from 'undici';

/** What the client reads of an answer: `headers.forEach` sees each name lower-cased, once, repeated values joined with ", ". */
export interface TransportAnswer {
  status: number;
  headers: { forEach(cb: (value: string, name: string) => void): void };
  text(): Promise<string>;
}

/** One request, answered; rejects when it cannot be sent or answered, or when `signal` aborts it. */
export type Transport = (
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined; signal?: AbortSignal },
) => Promise<TransportAnswer>;

/**
 * The default transport's connections, shared by every client of the process: a keep-alive pool per
 * origin (undici's defaults: an idle connection is kept for the server's `Keep-Alive: timeout`
 * less 2 s, 4 s without one). An idle connection does not hold the process open (undici unrefs
 * it). Undici's own header and body timeouts are off: the client bounds each request itself
 * (`timeoutMs`, which `--timeout` may set past undici's 300 s).
 */
let agent: Agent | undefined;

/** The default transport: undici's `request` on the process's keep-alive pools. */
export const undiciTransport: Transport = async (url, { method, headers, body, signal }) => {
  agent ??= new Agent({ headersTimeout: 0, bodyTimeout: 0 });
  const res = await request(url, { dispatcher: agent, method, headers, body, signal });
  return {
    status: res.statusCode,
    headers: {
      forEach(cb) {
        // undici lower-cases the names and gives a repeated header as an array (set-cookie too: the API sets no cookie)
        for (const [name, v] of Object.entries(res.headers)) if (v !== undefined) cb(Array.isArray(v) ? v.join(', ') : v, name);
      },
    },
    text: () => res.body.text(),
  };
};

/**
 * Whether a failed request lost its connection (closed or reset by the peer) rather than anything
 * else: undici's `request` rejects with the socket's error itself, `fetch` with a TypeError whose
 * `cause` it is.
 */
export function closedUnderneath(e: unknown): boolean {
  const err = e as { code?: unknown; cause?: { code?: unknown } };
  const code = err.code ?? err.cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}
