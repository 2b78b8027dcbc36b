/**
 * One webhook POST, by node:http(s) with the URL policy's pinned lookup, or by an injected
 * fetch (tests). Redirects are not followed; at most 64 KiB of the answer is read; the
 * outcome is the status (and `Retry-After`), or the error's name.
 */
import http from 'node:http';
import https from 'node:https';
import type { SignedHeaders } from './signing.ts';
import { pinnedLookup, resolveAllowed, WebhookUrlError, type Resolver, type WebhookMode } from './url-policy.ts';

export const USER_AGENT = 'PayLater-Webhooks/1.0 (+standard-webhooks-v1)';
const MAX_RESPONSE_BYTES = 64 * 1024;

export interface SendResult {
  status: number | null;
  error: string | null;
  retryAfter: string | string[] | undefined;
}

export function errorName(err: unknown): string {
  if (err instanceof WebhookUrlError) return `url_refused: ${err.message}`;
  const e = err as NodeJS.ErrnoException & { cause?: NodeJS.ErrnoException };
  if (e?.code === 'EBLOCKED') return `url_refused: ${e.message}`;
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return 'timeout';
  const code = e?.code ?? e?.cause?.code;
  if (typeof code === 'string') return code;
  return e instanceof Error ? e.message : String(err);
}

/** One POST with node:http(s): the socket connects to the address the URL policy checked. */
export function sendWithNode(
  url: URL,
  body: string,
  headers: SignedHeaders,
  timeoutMs: number,
  agents: { http: http.Agent; https: https.Agent },
  lookup: ReturnType<typeof pinnedLookup>,
): Promise<SendResult> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (r: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(r);
    };
    const mod = url.protocol === 'https:' ? https : http;
    const req = mod.request(url, {
      method: 'POST',
      agent: url.protocol === 'https:' ? agents.https : agents.http,
      lookup,
      headers: {
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
        'user-agent': USER_AGENT,
        ...headers,
      },
    });
    const timer = setTimeout(() => {
      finish({ status: null, error: 'timeout', retryAfter: undefined });
      req.destroy(Object.assign(new Error('timeout'), { code: 'timeout' }));
    }, timeoutMs);
    req.on('response', (res) => {
      finish({ status: res.statusCode ?? null, error: null, retryAfter: res.headers['retry-after'] });
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_RESPONSE_BYTES) res.destroy();
      });
      res.on('error', () => {});
    });
    req.on('error', (err) => finish({ status: null, error: errorName(err), retryAfter: undefined }));
    req.end(body);
  });
}

/** One POST with an injected fetch: the resolved addresses are checked first (not pinned). */
export async function sendWithFetch(
  fetchImpl: typeof fetch,
  url: URL,
  body: string,
  headers: SignedHeaders,
  timeoutMs: number,
  mode: WebhookMode,
  resolver: Resolver,
): Promise<SendResult> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), timeoutMs);
  try {
    await resolveAllowed(url.hostname, mode, resolver);
    const res = await fetchImpl(url, {
      method: 'POST',
      body,
      redirect: 'manual',
      signal: ac.signal,
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers },
    });
    res.body?.cancel().catch(() => {});
    return { status: res.status, error: null, retryAfter: res.headers.get('retry-after') ?? undefined };
  } catch (err) {
    return { status: null, error: ac.signal.aborted ? 'timeout' : errorName(err), retryAfter: undefined };
  } finally {
    clearTimeout(timer);
  }
}
