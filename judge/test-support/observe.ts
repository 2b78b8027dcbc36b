/**
 * Test support for the judge's rule tests: an exchange written as what it shows (its operation,
 * merchant, parameters, answer, instants), turned into the Exchange an ear hands the judge: the
 * method and URL from the contract's route table, the merchant's key in its operation's header, the
 * bodies as text. The rule tests assert the findings of the rule they test; the answer, request and
 * variant judges have their own tests (their records are kept minimal here).
 */
import { expect } from 'vitest';
import { stateMachine } from '../../generated/index.ts';
import { routeTable } from '../../server/routes.ts';
import { createJudge, type Judge } from '../index.ts';
import type { Exchange, Finding, JudgeOptions } from '../exchange.ts';
import type { TransactionMemory } from '../memory.ts';
import { createRequest, partnerRecord } from './record.ts';

/** One exchange as a rule test writes it. Times are epoch ms. */
export interface Observation {
  seq: number;
  opId: string;
  /** The merchant (its key is made from it: `sk_test_…` when `testKey`, else `sk_live_…`); null for a session-token operation. */
  merchant: string | null;
  testKey?: boolean;
  params: Record<string, string>;
  token?: string;
  requestJson: unknown;
  status: number;
  json: unknown;
  search?: string;
  /** The request asked for a simulated failure (a `Paylater-Simulate` header with the answer's status). */
  simulated?: boolean;
  responseHeaders?: Record<string, string>;
  headers?: Record<string, string>;
  sentAt: number;
  receivedAt: number;
  /** Another exchange was open when this one ended (the ear's `othersOpen`; default: not known). */
  othersOpen?: boolean;
}

/** The key a test merchant calls with. */
export const keyOf = (merchant: string, testKey = false): string =>
  `sk_${testKey ? 'test' : 'live'}_${merchant.replace(/[^A-Za-z0-9]/g, '_')}_0000000000000000000000`;

/** The Exchange an ear would hand the judge for `o`. */
export function exchangeOf(o: Observation): Exchange {
  const entry = routeTable(1).byId.get(o.opId) ?? routeTable(2).byId.get(o.opId);
  if (!entry) throw new Error(`no operation ${o.opId}`);
  const path = entry.path.replace(/\{([^}]+)\}/g, (_m, name: string) => encodeURIComponent(o.params[name] ?? 'none'));
  const headers: Record<string, string> = { ...(o.headers ?? {}) };
  const auth = entry.auth?.header.toLowerCase();
  if (auth === 'x-session-token' && o.token !== undefined) headers[auth] = o.token;
  else if (auth !== undefined && o.merchant !== null) headers[auth] = keyOf(o.merchant, o.testKey);
  if (o.simulated) headers['paylater-simulate'] = String(o.status);
  if (o.requestJson !== undefined) headers['content-type'] = 'application/json';
  return {
    seq: o.seq,
    opId: o.opId,
    method: entry.method,
    url: path + (o.search ? `?${o.search}` : ''),
    headers,
    body: o.requestJson === undefined ? undefined : JSON.stringify(o.requestJson),
    status: o.status,
    responseHeaders: { 'content-type': 'application/json', ...(o.responseHeaders ?? {}) },
    responseText: o.json === undefined ? '' : JSON.stringify(o.json),
    json: o.json,
    sentAt: o.sentAt,
    receivedAt: o.receivedAt,
    othersOpen: o.othersOpen,
  };
}

/** Kinds of the judges every exchange gets, tested on their own: a rule test leaves them out. */
const EVERY_EXCHANGE = new Set(['answer', 'request', 'variant']);
export const ruleFindings = (fs: readonly Finding[]): Finding[] => fs.filter((f) => !EVERY_EXCHANGE.has(f.kind));

/** A judge fed observations, as the rule tests use it: each call returns the findings of the rules it tests. */
export class ObservedJudge {
  readonly judge: Judge;
  constructor(o: JudgeOptions & { webhookWindowMs?: number } = {}) {
    const { webhookWindowMs, ...rest } = o;
    this.judge = createJudge({
      variant: 1,
      ...rest,
      ...(webhookWindowMs === undefined ? {} : { webhooks: { windowMs: webhookWindowMs } }),
    });
  }
  observe(o: Observation): Finding[] {
    return ruleFindings(this.judge.exchange(exchangeOf(o)));
  }
  /** A webhook event (no signature, no payload schema: the rule tests judge its match), its status the one its transition leads to unless `data` says. */
  event(name: string, id: string, webhookId: string, at: number, seq: number, data: Record<string, unknown> = {}): Finding[] {
    const status = stateMachine.transitions.find((t) => t.emits === name)?.to;
    const body = JSON.stringify({ event: name, data: { id, status, ...data } });
    return ruleFindings(this.judge.delivery({ seq, receivedAt: at, headers: { 'webhook-id': webhookId }, body }));
  }
  sweep(now: number): Finding[] {
    return this.judge.sweep(now);
  }
  get transitions(): Set<string> {
    return this.judge.memory.seen.transitions;
  }
  get events(): Set<string> {
    return this.judge.memory.seen.events;
  }
  get txs(): Map<string, TransactionMemory> {
    return this.judge.memory.transactions;
  }
}

let seq = 0;
/** An exchange of merchant `a` (a test key) answered `status` with `json` around `at` (epoch ms, 10 ms long); `o` sets the rest. */
export function observation(opId: string, status: number, json: unknown, at: number, o: Partial<Observation> = {}): Observation {
  return {
    seq: ++seq,
    opId,
    merchant: 'a',
    testKey: true,
    params: {},
    requestJson: undefined,
    status,
    json,
    sentAt: at - 5,
    receivedAt: at + 5,
    ...o,
  };
}

/** B1 made a transaction of merchant `a` through the ear at `at`, on a clock `offset` ms ahead: its record (no finding). */
export function madeThroughEar(j: ObservedJudge, at: number, offset = 0): Record<string, unknown> {
  const rec = partnerRecord(at + offset);
  expect(j.observe(observation('createPartnerTransaction', 201, rec, at, { requestJson: createRequest(rec) }))).toEqual([]);
  return rec;
}

/** A page of a sandbox list of merchant `a` judged around `at` (the last page unless `nextCursor`): the kinds found. */
export function listed(
  j: ObservedJudge,
  opId: string,
  data: unknown[],
  at: number,
  o: Partial<Observation> & { nextCursor?: string } = {},
): string[] {
  const { nextCursor = null, ...rest } = o;
  return j.observe(observation(opId, 200, { data, nextCursor }, at, rest)).map((f) => f.kind);
}

/** The confirmation SMS of `rec` as the outbox lists it. */
export const smsOf = (rec: Record<string, unknown>, sentAt: number, id = `sms-${String(rec.id)}`) => ({
  id,
  to: rec.customerPhone,
  body: 'M: confirm',
  transactionId: rec.id,
  sentAt: new Date(sentAt).toISOString(),
});
