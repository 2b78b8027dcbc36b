/**
 * Figure: B2 GET-by-id requests/s of the reference server (full request + response validation)
 * ÷ a bare express app serving the same JSON on the same route (target ≥ 0.7). Alternating rounds
 * after a warm-up on both sides; the median rps of the server is shared as `oursB2Rps`.
 *
 * Beside them, in the same rounds, the floor: the package's contract router (`paylater-contract/server`,
 * express-openapi-validator's request and response validation) with a handler answering the same
 * JSON at once, no store and no authentication. It is not the figure; it says how much of the gap
 * is the validation layer and how much the reference server's own work (store, auth, logs).
 *
 * And a second floor: express-openapi-validator as its README shows it, one `middleware()` on the
 * whole bundled document (requests and responses validated), before an express route answering the
 * same JSON at once. It says what the library's public API costs on its own on this machine,
 * whatever a server built on it does (issue 28 asks for the figure on that API).
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { loadBundledDocument } from '../../generated/index.ts';
import { isMad } from '../../lib/money.ts';
import type { TestServer } from '../../reference-server/testing.ts';
import { shipped } from './shipped.ts';
import { checkClean, fmt, load, median, partnerBody, WARMUP_SECONDS, type Figure } from './tools.ts';

function listen(app: express.Express): Promise<{ url: string; close: () => Promise<void> }> {
  return new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((r) => {
            s.close(() => r());
            s.closeAllConnections();
          }),
      });
    });
  });
}

/** Creates one transaction of the server's first merchant over HTTP and reads it back (B2). */
async function createOne(s: TestServer): Promise<{ id: string; json: unknown }> {
  const r = await fetch(`${s.baseUrl}/api/v1/public/partner/transactions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Service-Key': s.merchants[0]!.apiKey },
    body: partnerBody,
  });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${await r.text()}`);
  const created = (await r.json()) as { id: string };
  const g = await fetch(`${s.baseUrl}/api/v1/public/partner/transactions/${created.id}`, {
    headers: { 'X-Api-Key': s.merchants[0]!.apiKey },
  });
  return { id: created.id, json: await g.json() };
}

export const b2ValidationOverhead: Figure = {
  id: 'b2-validation-overhead',
  title: 'B2 GET rps, full validation ÷ bare express, same JSON',
  target: '≥ 0.7',
  pass: (r) => r >= 0.7,
  async run(ctx) {
    // the package as it ships (compiled, ./shipped.ts), as the bare app is plain JavaScript
    const { startTestServer } = await shipped<typeof import('../../reference-server/testing.ts')>('reference-server/testing.ts');
    const { createContractRouter } = await shipped<typeof import('../../server/index.ts')>('server/index.ts');
    const s = await startTestServer({ webhookDispatcherFactory: null });
    const { id, json } = await createOne(s);
    const bare = express();
    bare.disable('x-powered-by');
    bare.set('etag', false);
    bare.get('/api/v1/public/partner/transactions/:id', (_req, res) => {
      res.json(json);
    });
    const b = await listen(bare);
    const floorApp = express();
    floorApp.disable('x-powered-by');
    floorApp.set('etag', false);
    floorApp.use(
      createContractRouter({
        variant: 1,
        handlers: { getPartnerTransaction: () => ({ status: 200, body: json }) } as never,
        authenticate: () => ({}),
      }),
    );
    const f = await listen(floorApp);
    const eovApp = express();
    eovApp.disable('x-powered-by');
    eovApp.set('etag', false);
    eovApp.use(
      OpenApiValidator.middleware({
        apiSpec: loadBundledDocument(1) as never,
        validateRequests: true,
        validateResponses: true,
        formats: { mad: { type: 'number', validate: (x: number) => isMad(x) } },
      }),
    );
    eovApp.get('/api/v1/public/partner/transactions/:id', (_req, res) => {
      res.json(json);
    });
    eovApp.use((err: { status?: number; message: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
      res.status(err.status ?? 500).json({ message: err.message });
    });
    const e = await listen(eovApp);
    try {
      const path = `/api/v1/public/partner/transactions/${id}`;
      const headers = { 'X-Api-Key': s.merchants[0]!.apiKey };
      // Warm-up, both sides alike: steady state is measured, not the JIT's first seconds (the
      // server has far more code to optimise than the one-route baseline).
      await load({ url: s.baseUrl + path, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      await load({ url: b.url + path, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      await load({ url: f.url + path, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      await load({ url: e.url + path, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      const oursRps: number[] = [];
      const baseRps: number[] = [];
      const floorRps: number[] = [];
      const eovRps: number[] = [];
      for (let round = 0; round < ctx.rounds; round++) {
        const ours = await load({ url: s.baseUrl + path, headers, connections: ctx.connections, duration: ctx.durationSeconds });
        checkClean('reference server B2', ours);
        const base = await load({ url: b.url + path, headers, connections: ctx.connections, duration: ctx.durationSeconds });
        checkClean('bare express', base);
        const floor = await load({ url: f.url + path, headers, connections: ctx.connections, duration: ctx.durationSeconds });
        checkClean('contract router alone', floor);
        const library = await load({ url: e.url + path, headers, connections: ctx.connections, duration: ctx.durationSeconds });
        checkClean('express-openapi-validator alone', library);
        oursRps.push(ours.requests.average);
        baseRps.push(base.requests.average);
        floorRps.push(floor.requests.average);
        eovRps.push(library.requests.average);
      }
      const ours = median(oursRps);
      const base = median(baseRps);
      const floor = median(floorRps);
      const eov = median(eovRps);
      ctx.shared.set('oursB2Rps', ours);
      return {
        ratio: ours / base,
        detail: `reference server ${fmt(ours)} req/s vs bare express ${fmt(base)} req/s (medians of ${ctx.rounds} alternating rounds: ${oursRps.map((x) => fmt(x)).join('/')} vs ${baseRps.map((x) => fmt(x)).join('/')}); the contract router alone (validation, a constant handler, no store) ${fmt(floor)} req/s = ${(floor / base).toFixed(2)} of bare express; express-openapi-validator as its README shows it (one middleware() on the whole document, requests and responses, a constant route) ${fmt(eov)} req/s = ${(eov / base).toFixed(2)}`,
      };
    } finally {
      await b.close();
      await f.close();
      await e.close();
      await s.close();
    }
  },
};
