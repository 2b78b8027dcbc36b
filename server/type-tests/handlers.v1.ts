/**
 * Type test (checked by `npm run typecheck` and server/type-tests.test.ts): a handler of every
 * Variant 1 operation typechecks against generated/v1/server.ts; the cases marked
 * `@ts-expect-error` must not (an undeclared status, a body of the wrong type, a body
 * missing a required member).
 */
import type { components } from '../../generated/v1/schema.d.ts';
import type { Handler, Handlers, OperationId, Response } from '../../generated/v1/server.ts';

type Tx = components['schemas']['PartnerTransaction'];

const tx: Tx = {
  id: '3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10',
  status: 'PENDING',
  totalAmount: 600,
  currency: 'MAD',
  customerPhone: '212612345678',
  items: [{ id: '9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d', name: 'Item', quantity: 1, unitPrice: 600, categoryId: null, reference: null }],
  merchantName: 'Shop',
  storeName: 'Main',
  orderReference: 'ORD-000000000A',
  vendorReference: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: null,
};

/** Every declared refusal of an operation carries its narrowed code: a 500 of every operation. */
const internal = { status: 500, body: { error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } } } as const;

export const handlers: Handlers<{ merchantId: string }> = {
  createSession: async (req) => {
    if (req.body.items.length === 0) return { status: 400, body: { error: { code: 'INVALID_ITEMS', message: 'items is empty' } } };
    return {
      status: 200,
      body: { token: 'st_x', expiresAt: '2026-01-01T01:00:00.000Z' },
      headers: { 'RateLimit-Limit': 100, 'RateLimit-Remaining': 99, 'RateLimit-Reset': 900, 'RateLimit-Policy': '100;w=900' },
    };
  },
  getTransactionStatusBySessionToken: () => internal,
  verifyTransaction: () => internal,
  createPartnerTransaction: async (req, ctx) => {
    const total: number = req.body.total;
    if (ctx.caller.merchantId === '') return { status: 401, body: { error: { code: 'INVALID_API_KEY', message: 'Invalid API key' } } };
    return { status: 201, body: { ...tx, totalAmount: total } };
  },
  getPartnerTransaction: (req) =>
    req.params.transactionId === tx.id
      ? { status: 200, body: tx }
      : { status: 404, body: { error: { code: 'TRANSACTION_NOT_FOUND', message: 'Transaction not found' } } },
  getPartnerTransactionByVendorReference: (req) => ({ status: 200, body: { ...tx, vendorReference: req.params.vendorReference } }),
  cancelPartnerTransactionByVendorReference: () => ({ status: 200, body: { ...tx, status: 'CANCELED' } }),
  sdkGetSession: () => internal,
  sdkCreatePaymentIntent: () => internal,
  sdkSimulatePayment: () => internal,
  sdkCancelPaymentIntent: () => internal,
  sandboxConfirmTransaction: () => ({ status: 200, body: { ...tx, status: 'APPROVED' } }),
  sandboxCancelTransaction: () => ({ status: 200, body: { ...tx, status: 'CANCELED' } }),
  sandboxCompleteTransaction: () => ({ status: 200, body: { ...tx, status: 'COMPLETED' } }),
  sandboxPaySession: () => internal,
  sandboxGetClock: () => internal,
  sandboxGetFaultRule: () => internal,
  sandboxSetFaultRule: () => internal,
  sandboxGetApiLog: () => internal,
  sandboxSetApiLog: () => internal,
  sandboxAdvanceClock: () => internal,
  sandboxListSms: (req) => {
    const limit: number | undefined = req.query.limit;
    return limit === 0 ? internal : { status: 400, body: { error: { code: 'VALIDATION_ERROR', message: 'query.limit is invalid' } } };
  },
  sandboxListWebhookDeliveries: () => internal,
  sandboxRedeliverWebhook: () => internal,
  sandboxGetWebhookEndpoint: () => internal,
  sandboxSetWebhookEndpoint: () => internal,
  sandboxRotateWebhookSecret: () => internal,
  sandboxSendTestWebhook: () => internal,
  sandboxListTransactions: () => internal,
  sandboxStreamEvents: (req) => ({
    status: 200,
    stream(_r, res) {
      res.end(`id: ${req.headers['last-event-id'] ?? ''}\n\n`);
    },
  }),
  sandboxReset: () => internal,
  getHealth: () => ({ status: 200, body: { status: 'ok' } }),
  getReadiness: () => ({ status: 503, body: { error: { code: 'NOT_READY', message: 'The store is not reachable' } } }),
};

// An undeclared status.
// @ts-expect-error 418 is not a status getPartnerTransaction declares
export const wrongStatus: Handler<'getPartnerTransaction'> = () => ({ status: 418, body: tx });

// A body of the wrong type.
// @ts-expect-error totalAmount is a number (Money), not a string
export const wrongBodyType: Handler<'getPartnerTransaction'> = () => ({ status: 200, body: { ...tx, totalAmount: '600' } });

// A body missing a required member.
const { merchantName: _dropped, ...withoutMerchantName } = tx;
// @ts-expect-error merchantName is required
export const missingMember: Handler<'getPartnerTransaction'> = () => ({ status: 200, body: withoutMerchantName });

// An error code the operation does not declare for that status.
// @ts-expect-error getPartnerTransaction's 404 is TRANSACTION_NOT_FOUND only
export const wrongCode: Handler<'getPartnerTransaction'> = () => ({
  status: 404,
  body: { error: { code: 'SESSION_NOT_FOUND', message: 'x' } },
});

// A required response header left out (429 declares Retry-After).
// @ts-expect-error the 429 of getPartnerTransaction requires Retry-After
export const missingHeader: Handler<'getPartnerTransaction'> = () => ({
  status: 429,
  body: { error: { code: 'AUTH_THROTTLED', message: 'x', retry_after: 1 } },
});

// A path parameter the operation does not have.
/* eslint-disable @typescript-eslint/no-unsafe-assignment -- the line below is the error under test */
export const unknownParam: Handler<'getPartnerTransaction'> = (req) => {
  // @ts-expect-error getPartnerTransaction has no path parameter vendorReference
  const x: string = req.params.vendorReference;
  return { status: 200, body: { ...tx, id: x } };
};
/* eslint-enable @typescript-eslint/no-unsafe-assignment */

/** For every operation, its success status is in the union with a body typed from the document (never `any`). */
type IsAny<T> = 0 extends 1 & T ? true : false;
type SuccessOf<Id extends OperationId> = Extract<Response<Id>, { status: 200 | 201 }>;
type Typed<Id extends OperationId> = [SuccessOf<Id>] extends [never]
  ? false
  : SuccessOf<Id> extends { body: infer B }
    ? IsAny<B> extends true
      ? false
      : true
    : SuccessOf<Id> extends { stream: unknown }
      ? true
      : false;
export const everySuccessTyped: { [Id in OperationId]: Typed<Id> } = Object.fromEntries(Object.keys(handlers).map((id) => [id, true])) as {
  [Id in OperationId]: true;
};
