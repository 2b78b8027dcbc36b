/**
 * Typed server-side clients of the PayLater merchant API, one per variant, on the generated
 * openapi-fetch factories. Each call sets the auth header its operation declares (X-API-Key,
 * X-Session-Token, X-Service-Key or X-Api-Key, read from the contract), returns the typed body
 * of the success answer, and throws `PayLaterApiError { status, code, message, details?,
 * retryAfter? }` otherwise.
 *
 *   const paylater = createPayLaterClientV2({ baseUrl, apiKey: process.env.PAYLATER_API_KEY });
 *   const session = await paylater.createSession({ total: '1299.50', currency: 'MAD', items });
 *   const status = await paylater.getTransactionStatus(transactionId, session.session_token);
 *   if (status.status === 'APPROVED') fulfil();
 *
 * The sandbox lists are paginated (ADR-028): `listSms({ limit, cursor })` returns one page and its
 * `nextCursor`; `smsPages({ limit })` iterates every page (`for await (const page of …)`).
 */
import type { Client, ClientOptions } from 'openapi-fetch';
import { createMerchantClientV1, createMerchantClientV2, variants, type V1, type V2, type Variant } from '../../generated/index.ts';
import { authMiddleware, type Credentials } from './auth.ts';
import { parseApiError } from './errors.ts';

export { PayLaterApiError, parseApiError, type ErrorCode, type ErrorDetail } from './errors.ts';
export { authMiddleware, operationAuth, operationAuthTable, SESSION_TOKEN_SCHEME } from './auth.ts';
export type { Credentials, OperationAuth } from './auth.ts';

export interface PayLaterClientOptions {
  /** Base address: the sandbox base URL with test keys, the production one with live keys. */
  baseUrl: string;
  /** The merchant's API key (backend only, never in frontend code). */
  apiKey?: string;
  /** A session token, for the session-token operations called without an explicit token. */
  sessionToken?: string;
  /** Injected fetch (tests, proxies); defaults to globalThis.fetch. */
  fetch?: (input: Request) => Promise<Response>;
  /** Extra headers sent with every request (e.g. a User-Agent). */
  headers?: Record<string, string>;
}

type S1 = V1.components['schemas'];
type S2 = V2.components['schemas'];

/** The query of a paginated sandbox list (ADR-028): `limit` (at most the spec's maximum) and the previous page's `nextCursor`. */
export type PageQuery = NonNullable<V1.operations['sandboxListSms']['parameters']['query']>;

/** One page of a paginated list. */
export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * Every page of a paginated list, in order: `list` is called with `query` and then with each
 * page's `nextCursor` until a page has none.
 */
export async function* pages<P extends Page<unknown>>(list: (query: PageQuery) => Promise<P>, query: PageQuery = {}): AsyncGenerator<P> {
  let cursor = query.cursor;
  do {
    const page = await list({ ...query, ...(cursor !== undefined ? { cursor } : {}) });
    yield page;
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}

interface CallInit {
  path?: Record<string, string>;
  query?: PageQuery;
  body?: unknown;
  sessionToken?: string;
}

type LooseClient = {
  request(
    method: string,
    url: string,
    init?: Record<string, unknown>,
  ): Promise<{
    data?: unknown;
    error?: unknown;
    response: Response;
  }>;
};

function makeInvoker(variant: Variant, raw: Client<V1.paths> | Client<V2.paths>) {
  const ops = variants[variant === 1 ? 'v1' : 'v2'].operations as Record<string, { method: string; path: string }>;
  return async function invoke<T>(operationId: string, init: CallInit = {}): Promise<T> {
    const op = ops[operationId];
    if (!op) throw new Error(`operation ${operationId} is not part of Variant ${variant}`);
    const requestInit: Record<string, unknown> = {};
    if (init.path || init.query)
      requestInit.params = { ...(init.path ? { path: init.path } : {}), ...(init.query ? { query: init.query } : {}) };
    if (init.body !== undefined) requestInit.body = init.body;
    if (init.sessionToken !== undefined) {
      requestInit.middleware = [authMiddleware(variant, { sessionToken: init.sessionToken })];
    }
    const { data, error, response } = await (raw as unknown as LooseClient).request(op.method.toLowerCase(), op.path, requestInit);
    if (!response.ok) throw parseApiError(response.status, error, response.headers, operationId);
    return data as T;
  };
}

function rawOptions(options: PayLaterClientOptions): ClientOptions {
  return {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.headers ? { headers: options.headers } : {}),
  };
}

function credentials(options: PayLaterClientOptions): Credentials {
  return {
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.sessionToken !== undefined ? { sessionToken: options.sessionToken } : {}),
  };
}

/** Operations both variants share, typed with the variant's schemas. */
function common<S extends S1 | S2>(invoke: ReturnType<typeof makeInvoker>) {
  const listSms = (query: PageQuery = {}) => invoke<S['SmsOutbox']>('sandboxListSms', { query });
  const listWebhookDeliveries = (query: PageQuery = {}) => invoke<S['WebhookDeliveryList']>('sandboxListWebhookDeliveries', { query });
  return {
    /** B1: create a partner transaction (X-Service-Key). */
    createPartnerTransaction: (body: S['PartnerTransactionCreateRequest']) =>
      invoke<S['PartnerTransaction']>('createPartnerTransaction', { body }),
    /** B2: read a partner transaction by id (X-Api-Key). */
    getPartnerTransaction: (transactionId: string) => invoke<S['PartnerTransaction']>('getPartnerTransaction', { path: { transactionId } }),
    /** B3: read a partner transaction by the merchant's vendorReference (X-Api-Key). */
    getPartnerTransactionByVendorReference: (vendorReference: string) =>
      invoke<S['PartnerTransaction']>('getPartnerTransactionByVendorReference', { path: { vendorReference } }),
    /** B4: cancel a PENDING partner transaction by vendorReference (X-Api-Key). */
    cancelPartnerTransactionByVendorReference: (vendorReference: string) =>
      invoke<S['PartnerTransaction']>('cancelPartnerTransactionByVendorReference', { path: { vendorReference } }),
    /** A2: verify a checkout transaction with the session token (X-Session-Token). */
    getTransactionStatus: (transactionId: string, sessionToken?: string) =>
      invoke<S['TransactionStatusRecord']>('getTransactionStatusBySessionToken', {
        path: { transaction_id: transactionId },
        ...(sessionToken !== undefined ? { sessionToken } : {}),
      }),
    /** Internal SDK operations (what the browser SDK and the hosted page call). */
    sdk: {
      getSession: (sessionToken?: string) =>
        invoke<S['CheckoutSessionSummary']>('sdkGetSession', sessionToken !== undefined ? { sessionToken } : {}),
      createPaymentIntent: (body: S['PaymentIntentRequest'], sessionToken?: string) =>
        invoke<S['PaymentIntent']>('sdkCreatePaymentIntent', {
          body,
          ...(sessionToken !== undefined ? { sessionToken } : {}),
        }),
      simulatePayment: (paymentIntentId: string, body: S['SimulatePaymentRequest'], sessionToken?: string) =>
        invoke<S['SessionPaymentResult']>('sdkSimulatePayment', {
          path: { paymentIntentId },
          body,
          ...(sessionToken !== undefined ? { sessionToken } : {}),
        }),
      cancelPaymentIntent: (paymentIntentId: string, sessionToken?: string) =>
        invoke<S['PaymentIntentCancellation']>('sdkCancelPaymentIntent', {
          path: { paymentIntentId },
          ...(sessionToken !== undefined ? { sessionToken } : {}),
        }),
    },
    /** Sandbox operations (test keys only, ADR-020). */
    sandbox: {
      paySession: (body: S['SessionPaymentRequest']) => invoke<S['SessionPaymentResult']>('sandboxPaySession', { body }),
      confirmTransaction: (transactionId: string) =>
        invoke<S['PartnerTransaction']>('sandboxConfirmTransaction', { path: { transactionId } }),
      cancelTransaction: (transactionId: string) =>
        invoke<S['PartnerTransaction']>('sandboxCancelTransaction', { path: { transactionId } }),
      completeTransaction: (transactionId: string) =>
        invoke<S['PartnerTransaction']>('sandboxCompleteTransaction', { path: { transactionId } }),
      getClock: () => invoke<S['SandboxClock']>('sandboxGetClock'),
      advanceClock: (body: S['SandboxClockAdvanceRequest']) => invoke<S['SandboxClock']>('sandboxAdvanceClock', { body }),
      /** One page of the SMS outbox (`limit`, `cursor`: ADR-028). */
      listSms,
      /** Every page of the SMS outbox from `query.cursor` (or the first), `limit` per page. */
      smsPages: (query?: PageQuery) => pages(listSms, query),
      /** One page of the webhook deliveries (`limit`, `cursor`: ADR-028). */
      listWebhookDeliveries,
      /** Every page of the webhook deliveries from `query.cursor` (or the first), `limit` per page. */
      webhookDeliveryPages: (query?: PageQuery) => pages(listWebhookDeliveries, query),
      redeliverWebhook: (deliveryId: string) => invoke<S['WebhookDelivery']>('sandboxRedeliverWebhook', { path: { deliveryId } }),
    },
  };
}

export function createPayLaterClientV1(options: PayLaterClientOptions) {
  const raw = createMerchantClientV1(rawOptions(options));
  raw.use(authMiddleware(1, credentials(options)));
  const invoke = makeInvoker(1, raw);
  return {
    variant: 1 as const,
    /** The underlying openapi-fetch client (auth middleware installed), for full responses. */
    raw,
    /** A1: create a checkout session (X-API-Key); hand `token` to the browser SDK. */
    createSession: (body: S1['SessionRequestV1']) => invoke<S1['SessionResponseV1']>('createSession', { body }),
    /** A3: verify a checkout transaction with the API key (X-API-Key). */
    verifyTransaction: (transactionId: string) => invoke<S1['TransactionVerification']>('verifyTransaction', { path: { transactionId } }),
    ...common<S1>(invoke),
  };
}

export function createPayLaterClientV2(options: PayLaterClientOptions) {
  const raw = createMerchantClientV2(rawOptions(options));
  raw.use(authMiddleware(2, credentials(options)));
  const invoke = makeInvoker(2, raw);
  return {
    variant: 2 as const,
    /** The underlying openapi-fetch client (auth middleware installed), for full responses. */
    raw,
    /** A1: create a checkout session (X-API-Key); hand `session_token` to the browser SDK. */
    createSession: (body: S2['SessionRequestV2']) => invoke<S2['SessionResponseV2']>('createSession', { body }),
    ...common<S2>(invoke),
  };
}

export type PayLaterClientV1 = ReturnType<typeof createPayLaterClientV1>;
export type PayLaterClientV2 = ReturnType<typeof createPayLaterClientV2>;
