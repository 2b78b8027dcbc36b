import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loadBundledDocument } from '../../generated/index.ts';
import { isMad } from '../../lib/money.ts';
import { ApiError } from './errors.ts';
import { buildOperations, type OperationInfo } from './operations.ts';
import { createOperationValidator, pathParamsOf, type Middleware, type ValidatorOptions } from './validator.ts';

const OPTIONS: ValidatorOptions = {
  validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
  validateResponses: true,
  formats: { mad: { type: 'number', validate: (x: number) => isMad(x) } },
};

const doc = loadBundledDocument(1);
const ops = buildOperations(doc, 1);
const op = (id: string): OperationInfo => {
  const o = ops.find((x) => x.operationId === id);
  if (!o) throw new Error(id);
  return o;
};

const ID = '3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10';
const validTransaction = {
  id: ID,
  orderReference: 'ORD-ABCDEFGHIJ',
  vendorReference: null,
  status: 'PENDING',
  totalAmount: 1299.5,
  currency: 'MAD',
  customerPhone: '212612345678',
  merchantName: 'Atlas Electronics',
  storeName: 'Atlas Casablanca',
  items: [{ id: '795315bd-3734-4a00-ab3a-26c7dcf12fea', name: 'W', reference: 'S', quantity: 1, unitPrice: 1299.5, categoryId: 42 }],
  createdAt: '2026-11-20T22:56:49.357Z',
  updatedAt: null,
};

/**
 * A bare express app running one operation's validation steps in front of a handler that
 * answers `reply` — so what the steps accept and refuse is seen over HTTP.
 */
describe('express-openapi-validator bound per operation', () => {
  let url: string;
  let close: () => void;
  let reply: unknown = validTransaction;
  let replyStatus = 200;
  let seenParams: unknown;
  beforeAll(async () => {
    const v = await createOperationValidator(doc, ops, OPTIONS);
    const app = express();
    const get = op('getPartnerTransaction');
    app.get(/^\/api\/v1\/public\/partner\/transactions\/[^/]+$/, (req, res, next) => {
      const chain: Middleware[] = [
        ...v.steps(get),
        (r, s) => {
          seenParams = r.params;
          s.status(replyStatus);
          s.json(v.checkResponse(r, s, reply));
        },
      ];
      let i = 0;
      const step = (err?: unknown): void => {
        if (err) return next(err);
        try {
          chain[i++]!(req, res, step);
        } catch (e) {
          next(e);
        }
      };
      step();
    });
    app.use(
      (
        err: { status?: number; message?: string; code?: string },
        _req: express.Request,
        res: express.Response,
        _next: express.NextFunction,
      ) => {
        res
          .status(err.status ?? 500)
          .json({ status: err.status, code: err instanceof ApiError ? err.code : undefined, message: err.message });
      },
    );
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/public/partner/transactions/`;
    close = () => server.close();
  });
  afterAll(() => close());

  it('passes a valid request and a valid response, with the decoded path parameters', async () => {
    reply = validTransaction;
    replyStatus = 200;
    const r = await fetch(url + ID);
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual(validTransaction);
    expect(seenParams).toEqual({ transactionId: ID });
  });

  it('refuses a path parameter outside its schema (request validation, 400)', async () => {
    const r = await fetch(`${url}not-a-uuid`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toMatch(/params\/transactionId must match format "uuid"/);
  });

  it('refuses an unknown query parameter (400)', async () => {
    const r = await fetch(`${url + ID}?debug=1`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toMatch(/Unknown query parameter 'debug'/);
  });

  it('refuses an invalid percent-escape in a path parameter (400 VALIDATION_ERROR)', async () => {
    const r = await fetch(`${url}%E0%A4%A`);
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({ code: 'VALIDATION_ERROR', message: 'path.transactionId is not valid percent-encoding' });
  });

  it.each([
    ['a required field missing', (({ orderReference: _o, ...rest }) => rest)(validTransaction)],
    ['a status outside the enum', { ...validTransaction, status: 'DONE' }],
    ['an amount with three decimals', { ...validTransaction, totalAmount: 1299.505 }],
    ['an undeclared field', { ...validTransaction, secret: 'x' }],
    ['an error body for a status the operation does not declare', { error: { code: 'VALIDATION_ERROR', message: 'x' } }, 409],
    ['an error body in another shape', { message: 'not found' }, 404],
  ])('fails the response with %s (response validation, 500)', async (_n, body, status = 200) => {
    reply = body;
    replyStatus = status;
    const r = await fetch(url + ID);
    expect(r.status).toBe(500);
    expect(((await r.json()) as { message: string }).message).toMatch(/^\/response|no schema defined for status code/);
  });

  it('checks the declared error shape: a 404 in the error envelope passes', async () => {
    reply = { error: { code: 'TRANSACTION_NOT_FOUND', message: 'Transaction not found' } };
    replyStatus = 404;
    const r = await fetch(url + ID);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual(reply);
  });

  it('does not check a 5xx body (as the library’s hook does not)', async () => {
    reply = { anything: true };
    replyStatus = 503;
    const r = await fetch(url + ID);
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual(reply);
  });
});

describe('checkResponse outside an operation', () => {
  it('passes a body through when no operation step ran (no req.openapi)', async () => {
    const v = await createOperationValidator(doc, ops, OPTIONS);
    const body = { whatever: 1 };
    expect(v.checkResponse({ headers: {} } as express.Request, { statusCode: 200 } as express.Response, body)).toBe(body);
  });
});

describe('createOperationValidator at start-up', () => {
  it('fails when an operation is not a route of the document', async () => {
    const stray: OperationInfo = { ...op('getPartnerTransaction'), path: '/api/v1/public/partner/nowhere/{transactionId}' };
    await expect(createOperationValidator(doc, [stray], OPTIONS)).rejects.toThrow(/no route for getPartnerTransaction/);
  });

  it('fails when the route at that path and method is another operation', async () => {
    const wrong: OperationInfo = { ...op('getPartnerTransaction'), operationId: 'cancelPartnerTransaction' };
    await expect(createOperationValidator(doc, [wrong], OPTIONS)).rejects.toThrow(/is not cancelPartnerTransaction/);
  });

  it('fails on an invalid document (the library validates the spec)', async () => {
    const broken = structuredClone(doc) as { paths: Record<string, Record<string, { parameters?: unknown }>> };
    broken.paths['/api/v1/public/partner/transactions/{transactionId}']!.get!.parameters = 'not a list';
    const printed: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void printed.push(args.join(' ')));
    try {
      await expect(createOperationValidator(broken as Record<string, unknown>, ops, OPTIONS)).rejects.toThrow(/apiDoc was invalid/);
    } finally {
      spy.mockRestore();
    }
    expect(printed.join('\n')).toContain('"message": "must be array"');
  });
});

describe('pathParamsOf', () => {
  it('decodes each parameter of the template', () => {
    expect(pathParamsOf(op('getPartnerTransactionByVendorReference'), '/api/v1/public/partner/transactions/vendor/A%20B%2FC')).toEqual({
      vendorReference: 'A B/C',
    });
  });
  it('gives no parameters for a template without any', () => {
    expect(pathParamsOf(op('createPartnerTransaction'), '/api/v1/public/partner/transactions')).toEqual({});
  });
});
