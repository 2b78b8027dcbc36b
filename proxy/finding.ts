/** The proxy's findings about state, and the one builder that makes them from what shows them. */

export type FindingKind =
  | 'no-transition'
  | 'contradiction'
  | 'timestamps'
  | 'duplicate-reference'
  | 'own-404'
  | 'b2-b3'
  | 'other-merchant'
  | 'expiry-time'
  | 'token'
  | 'rate-limit'
  | 'list'
  | 'sms'
  | 'simulate'
  | 'api-log'
  | 'webhook-retries'
  | 'webhook-no-transition'
  | 'webhook-missing'
  | 'webhook-payload';

export interface StateFinding {
  kind: FindingKind;
  operation: string;
  jsonPath: string;
  message: string;
  txId?: string;
  /** Exchange numbers that show it (earlier first). */
  exchanges: number[];
  expected?: unknown;
  actual?: unknown;
}

/** One answered exchange, as the state needs it. Times are wall-clock ms (Date.now() scale). */
export interface Observation {
  seq: number;
  opId: string;
  /** Digest of the caller's key; null for a session-token operation. */
  merchant: string | null;
  /** Whether the key is a test key (`sk_test_…`): its merchant's sandbox clock may be advanced. */
  testKey?: boolean;
  params: Record<string, string>;
  /** The session token a session-token operation was called with. */
  token?: string;
  requestJson: unknown;
  status: number;
  json: unknown;
  /** The request's query string (after `?`), or ''. */
  search?: string;
  /** The variant the caller speaks, when known. */
  variant?: 1 | 2;
  /** The request asked for a simulated failure (a `Paylater-Simulate` header, ADR-052): its answer did not run the call. */
  simulated?: boolean;
  /** The answer's headers (lower-case names): the rate limit's RateLimit-* and Retry-After. */
  responseHeaders?: Record<string, string>;
  sentAt: number;
  receivedAt: number;
}

/** What a finding is made from: the exchange at hand, the transaction (its first and latest exchanges are shown too). */
export interface FindingOf {
  kind: FindingKind;
  ob: Pick<Observation, 'seq' | 'opId'>;
  txId?: string;
  tx?: { first: number; last: number };
  jsonPath: string;
  message: string;
  expected?: unknown;
  actual?: unknown;
}

export function finding({ kind, ob, txId, tx, jsonPath, message, expected, actual }: FindingOf): StateFinding {
  const exchanges = [...new Set([tx?.first, tx?.last, ob.seq].filter((x): x is number => x !== undefined))].sort((a, b) => a - b);
  return { kind, operation: ob.opId, jsonPath, message, txId, exchanges, expected, actual };
}
