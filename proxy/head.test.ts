/**
 * ADR-024 in the proxy (the judge's `judgeUnrouted`, by `judgeHead` and `judgeMethod`, the
 * suite's probes' judges too): a HEAD answered with a status the GET's operation does not declare, or with
 * another status than the GET of the same URL with the same key just before (a 5xx or a 429 of either aside),
 * is a finding; a HEAD answering as its GET is none. A method a path does not serve answers 405
 * with `Allow` listing exactly the path's methods across both variants: another status, a method
 * missing or one more is a finding, as in the suite's probe.
 */
import { randomUUID } from 'node:crypto';
import { createServer, request, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fabricate } from '../conformance/mutants/match.ts';
import { routeTable } from '../server/routes.ts';
import { startLiveProxy, type LiveProxy } from './server.ts';

const KEY = `sk_test_head_${randomUUID().replace(/-/g, '')}`;
const record = fabricate({
  total: 600,
  currency: 'MAD',
  customerPhone: '212612345678',
  items: [{ name: 'Lamp', quantity: 1, unitPrice: 600 }],
});
const B2 = (id: string): string => `/api/v1/public/partner/transactions/${id}`;

/** How the upstream answers HEAD: as its GET, 404 as no route, or 502. */
let headMode: 'same' | '404' | '429' | '502' = 'same';
/** What the upstream's answer to DELETE (served nowhere on B2's path) says in `Allow`; null: 404 without one. */
let allowAnswer: string | null = '';
let upstream: Server;
let proxy: LiveProxy;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url?.endsWith('/status') && req.method === 'GET') {
        res.writeHead(401, { 'content-type': 'application/json; charset=utf-8' });
        return res.end(JSON.stringify({ error: { code: 'INVALID_SESSION_TOKEN', message: 'Invalid session token' } }));
      }
      if (req.method === 'DELETE') {
        const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
        if (allowAnswer !== null) headers.allow = allowAnswer;
        res.writeHead(allowAnswer === null ? 404 : 405, headers);
        const code = allowAnswer === null ? 'ROUTE_NOT_FOUND' : 'METHOD_NOT_ALLOWED';
        return res.end(JSON.stringify({ error: { code, message: 'Not here' } }));
      }
      if (req.method === 'HEAD' && headMode !== 'same') {
        res.writeHead(Number(headMode), { 'content-type': 'application/json; charset=utf-8' });
        return res.end();
      }
      const body = JSON.stringify({ ...record, id: (req.url ?? '').split('/').pop() });
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
      res.end(req.method === 'HEAD' ? undefined : body);
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  proxy = await startLiveProxy({ upstream: `http://127.0.0.1:${(upstream.address() as { port: number }).port}`, variant: 1 });
});
afterAll(async () => {
  await proxy?.close();
  await new Promise((r) => upstream?.close(r));
});

function call(method: string, path: string, headers: Record<string, string> = { 'x-api-key': KEY }): Promise<number> {
  return new Promise((resolve, reject) => {
    const r = request(`${proxy.url}${path}`, { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    r.on('error', reject);
    r.end();
  });
}

const headFindings = () => proxy.recorder.findings.filter((f) => f.message.startsWith('HEAD '));

describe('HEAD answers as its GET (ADR-024)', () => {
  it('a HEAD answering as the GET of the same URL: no finding', async () => {
    headMode = 'same';
    const path = B2(record.id as string);
    expect(await call('GET', path)).toBe(200);
    expect(await call('HEAD', path)).toBe(200);
    expect(headFindings()).toEqual([]);
  });

  it('HEAD refused as not served (404) right after its GET answered 200: a finding (mutant "HEAD not served (404)")', async () => {
    headMode = '404';
    const path = B2(randomUUID());
    expect(await call('GET', path)).toBe(200);
    expect(await call('HEAD', path)).toBe(404);
    expect(headFindings().map((f) => f.actual)).toEqual([404]);
  });

  /** A session-token status URL its GET refuses (401), then its HEAD, answered as `mode` says: the HEAD's status. */
  const headAfterRefusedGet = async (mode: typeof headMode): Promise<number> => {
    headMode = mode;
    const path = `/api/v1/public/transactions/${randomUUID()}/status`;
    const token = { 'x-session-token': 'st_unknown' };
    expect(await call('GET', path, token)).toBe(401);
    return call('HEAD', path, token);
  };

  it('HEAD refused (404) right after its GET answered another refusal (401): a finding', async () => {
    expect(await headAfterRefusedGet('404')).toBe(404);
    expect(headFindings().map((f) => f.actual)).toEqual([404, 404]);
  });

  it('HEAD throttled (429) right after its GET answered 401: no finding (the auth-failure limit counts every client at the address, ADR-024 compares the moment)', async () => {
    expect(await headAfterRefusedGet('429')).toBe(429);
    expect(headFindings().map((f) => f.actual)).toEqual([404, 404]);
  });

  it('HEAD answered with a status its GET does not declare (502): a finding', async () => {
    headMode = '502';
    expect(await call('HEAD', B2(randomUUID()))).toBe(502);
    expect(headFindings().map((f) => f.actual)).toEqual([404, 404, 502]);
  });
});

describe('a method a path does not serve: 405 with exactly its Allow (ADR-024)', () => {
  const path = B2(randomUUID());
  // B2's path serves GET (HEAD with it) in both variants, and nothing else
  const allowed = [...new Set(([1, 2] as const).flatMap((v) => routeTable(v).allowedAt(path)))].sort();
  const methodFindings = () => proxy.recorder.findings.filter((f) => f.message.startsWith('DELETE '));

  it("405 with Allow listing the path's methods, in any order and case: no finding", async () => {
    expect(allowed).toEqual(['GET', 'HEAD']);
    allowAnswer = 'head, GET';
    expect(await call('DELETE', path)).toBe(405);
    expect(methodFindings()).toEqual([]);
  });

  it('405 whose Allow also names a method the path does not serve: a finding (the suite refuses it too)', async () => {
    allowAnswer = 'GET, HEAD, POST';
    expect(await call('DELETE', path)).toBe(405);
    expect(methodFindings().map((f) => f.expected)).toEqual(['405 Allow: GET, HEAD']);
  });

  it('405 whose Allow leaves one out, and 404 without Allow: a finding each', async () => {
    allowAnswer = 'GET';
    expect(await call('DELETE', path)).toBe(405);
    allowAnswer = null;
    expect(await call('DELETE', path)).toBe(404);
    expect(methodFindings().map((f) => f.actual)).toEqual([405, 405, 404]);
  });
});
