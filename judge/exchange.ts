/**
 * The shapes every ear hands the judge (the suite's client, `paylater proxy`, a HAR file) and the
 * judge hands back: an exchange, a webhook delivery, a finding; the judge's options and its face.
 * Plain data: an ear fills them from what it saw, nothing more.
 */
import type { ValidateFunction } from 'ajv';
import type { Variant } from '../generated/index.ts';
import type { Contract } from './contract.ts';

/** One request and its answer, as the ear saw them. */
export interface Exchange {
  /** The ear's numbering, in the order exchanges began (webhook deliveries share it). */
  seq: number;
  /**
   * The operation, when the ear names it (the suite does); else the judge routes the request by the
   * contract's route table and writes the name it judged the exchange as here (`METHOD /path` for a
   * request no operation describes).
   */
  opId?: string;
  method: string;
  /** Absolute or origin-relative: the judge reads its pathname and search. */
  url: string;
  /** Request headers, lower-case names (credentials may be masked: `MASKED_<hex>`, a merchant all the same). */
  headers: Record<string, string>;
  /** The request body's text. */
  body?: string;
  status: number;
  /** Answer headers, lower-case names. */
  responseHeaders: Record<string, string>;
  responseText: string;
  /** The parsed answer, when the ear has it (else the judge parses `responseText`). */
  json?: unknown;
  /** When the request's first byte left and the answer's last byte came, in ms on the ear's clock (`JudgeOptions.timeOrigin` added). */
  sentAt: number;
  receivedAt: number;
  /** The request body was cut by the ear (a capture limit): the request is not judged on its body. */
  requestTruncated?: boolean;
  /** The answer's body was cut by the ear: only its status is judged. */
  responseTruncated?: boolean;
  /**
   * Whether another exchange of the ear that may change what the server holds (not of a safe method:
   * `isSafeMethod`) had begun and not ended when this one's answer ended: its answer may show that
   * one's effects before the judge has seen it. Undefined (not known) counts as true. Read only with
   * `JudgeOptions.soleClient`.
   */
  othersOpen?: boolean;
}

/**
 * A method that changes nothing on the server (RFC 9110 §9.2.1's safe methods; the contract's GETs
 * only read, time aside): an exchange of one left open beside another (an event stream) cannot have
 * made what that one's answer shows.
 */
export const isSafeMethod = (method: string): boolean => method === 'GET' || method === 'HEAD' || method === 'OPTIONS';

/** An exchange the ear named and parsed (the suite's client records these; reports and curl scripts are written from them). */
export interface NamedExchange extends Omit<Exchange, 'seq' | 'opId' | 'json'> {
  opId: string;
  json: unknown;
  seq?: number;
}

/** A webhook delivery the ear received (the proxy's webhook side; a HAR's entries to the receiver). */
export interface Delivery {
  /** The ear's numbering, shared with its exchanges. */
  seq: number;
  /** When its last byte came, in ms on the ear's clock. */
  receivedAt: number;
  headers: Record<string, string>;
  body: string;
  /** The body was cut by the ear: not judged. */
  truncated?: boolean;
}

/** What the judge reports: the rule's kind, where, why, and the exchanges (their `seq`) that show it, earlier first. */
export interface Finding {
  kind: FindingKind;
  operation: string;
  jsonPath: string;
  message: string;
  expected?: unknown;
  actual?: unknown;
  txId?: string;
  exchanges: number[];
}

/**
 * A finding of the judge, or an ear's own: `upstream` (the upstream unreachable or its answer cut
 * off; a replayed request unanswered; an exchange the judge could not judge), `replay` (a replayed
 * answer that differs from its recording).
 */
export interface EarFinding extends Omit<Finding, 'kind'> {
  kind: FindingKind | 'upstream' | 'replay';
}

export type FindingKind =
  | 'answer'
  | 'variant'
  | 'request'
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
  | 'webhook-payload'
  | 'no-cause';

export interface JudgeOptions {
  /** Every key held to this variant; else each key's is learned from its answers (ADR-070). */
  variant?: Variant;
  /**
   * The ear is its keys' sole client (ADR-087): from its first exchange on, every call made with a
   * key it sees passes through it (a test run's traffic through the proxy, its HAR). An effect on a
   * merchant's sandbox that no call it saw explains (a record, a fault rule, a webhook endpoint, the
   * clock, the API log changed by no call of that merchant) is then a finding (`no-cause`), judged on
   * exchanges no other was open beside (`Exchange.othersOpen` false); and a test key's sandbox clock
   * is followed by its answers, its deliveries judged on the retry schedule, its endpoint read
   * enabled after a listed 410 judged, its data held to what the judge saw made. Default false: the
   * judge never assumes it saw every call.
   */
  soleClient?: boolean;
  /** An edited contract per variant (the suite's `document` option): the answers are judged by it. */
  documents?: Partial<Record<Variant, Record<string, unknown>>>;
  /** The contract of `variant`, compiled by the ear (the suite's client): judged by, not compiled again. */
  contract?: Contract;
  /** Added to `sentAt`/`receivedAt` to make epoch ms (the suite and the proxy: `performance.timeOrigin`; a HAR: 0). Default 0. */
  timeOrigin?: number;
  /** Transactions remembered (and keys, tokens, cursors); past it the oldest goes first. Default 100,000. */
  maxTransactions?: number;
  /** The server's payment window (s); default x-state-machine's. */
  paymentWindowSeconds?: number;
  /** How far the server's clock may be from the ear's (ms): the model's slack. Default 100. */
  clockToleranceMs?: number;
  /**
   * Webhook deliveries are judged (and events expected of transitions) when given: `secret` verifies
   * signatures (Standard Webhooks), `windowMs` is how long after a transition its event may come,
   * `port` the ear's webhook port (an endpoint answered pointing at it sends its events to the ear),
   * `validators` the AsyncAPI payload validators (`asyncApiValidators()`; a delivery judged without
   * them is judged on all but its payload schema).
   */
  webhooks?: { secret?: string; windowMs: number; port?: number; validators?: ReadonlyMap<string, ValidateFunction> };
}

/** What a stream of exchanges exercised, in the suite's form, with the operations, statuses and events seen. */
export interface JudgeCoverage {
  transitions: { exercised: string[]; missing: string[] };
  codes: { exercised: string[]; missing: string[]; notDriven: string[] };
  operations: { exercised: string[]; missing: string[] };
  statuses: string[];
  events: { exercised: string[]; missing: string[]; received: number; unknownTransaction: number };
  /** Exchanges no operation describes. */
  unrouted: number;
}
