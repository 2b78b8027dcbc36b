/**
 * express-openapi-validator as a test oracle: the library the compiled checks
 * replaced, configured as the router configured it, on the whole bundled document as its README
 * shows. It answers what it decides, never through its own response check: `{ oracle: 'ok' }`,
 * or `{ oracle: 'error', status, errors }` with its error objects (mapped to a code by the same
 * `refusalOf` the router uses). A response to replay (`replay`, by the `x-replay` header) is sent
 * with `res.json`, which its response check sees.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { loadBundledDocument, type Variant } from '../../generated/index.ts';
import { isMad } from '../../lib/money.ts';

export interface Oracle {
  url: string;
  /** Responses to send back, by the `x-replay` header's value. */
  replay: Map<string, { status: number; body: unknown }>;
  close(): Promise<void>;
}

export type OracleAnswer = { oracle: 'ok' } | { oracle: 'error'; status: number; errors: Array<{ path: string; message: string }> };

/** `requests: false`: no request check (to replay any answer through the response check alone). */
export async function startOracle(variant: Variant, { requests = true }: { requests?: boolean } = {}): Promise<Oracle> {
  const replay = new Map<string, { status: number; body: unknown }>();
  const app = express();
  app.use(express.json({ type: () => true, strict: false }));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: loadBundledDocument(variant) as never,
      validateApiSpec: false,
      validateRequests: requests ? { allowUnknownQueryParameters: false, coerceTypes: false, allErrors: true } : false,
      validateResponses: { removeAdditional: false, coerceTypes: false },
      validateSecurity: false,
      fileUploader: false,
      formats: { mad: { type: 'number', validate: (x: number) => isMad(x) } },
    }),
  );
  app.use((req, res) => {
    const r = replay.get(String(req.headers['x-replay'] ?? ''));
    if (r) {
      res.status(r.status).json(r.body);
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ oracle: 'ok' }));
  });
  app.use(
    (
      err: { status?: number; errors?: unknown; message?: string },
      _req: express.Request,
      res: express.Response,
      _next: express.NextFunction,
    ) => {
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ oracle: 'error', status: err.status ?? 500, errors: err.errors ?? [{ path: '', message: err.message }] }));
    },
  );
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    replay,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
