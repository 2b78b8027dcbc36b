/**
 * What every judge of the table is handed: the exchange as routed (`Seen`), and the judging at hand
 * (`Judging`: the memory, the settings, the findings so far). One builder words every finding.
 */
import type { Variant } from '../generated/index.ts';
import type { Contract } from './contract.ts';
import type { Exchange, Finding, FindingKind } from './exchange.ts';
import { forgetMerchantData, madeDuring, type JudgeMemory, type MerchantMemory, type VariantPin } from './memory.ts';
import type { ValidateFunction } from 'ajv';
import { memoized } from '../lib/memo.ts';

/** The judge's settings, fixed at its creation. */
export interface Settings {
  /** The variant every key is held to, if one is. */
  fixedVariant: Variant | undefined;
  /** The ear is its keys' sole client (`JudgeOptions.soleClient`). */
  soleClient: boolean;
  /** The contract of each variant the judge may judge by (an edited one when given). */
  contracts: Map<Variant, Contract>;
  timeOrigin: number;
  /** The model's slack: how far the server's clock may be from the ear's (ms). */
  tolerance: number;
  /** The payment window (ms). */
  paymentWindowMs: number;
  /** Webhooks judged: how long a transition's event may take (ms), the ear's webhook port, the secret, the payload validators. */
  webhookWindowMs: number | undefined;
  webhookPort: number | undefined;
  webhookSecret: string | undefined;
  payloadValidators: ReadonlyMap<string, ValidateFunction> | undefined;
}

/** One exchange as the judges read it: routed, its caller known, its times on the ear's clock plus `timeOrigin` (epoch ms). */
export interface Seen {
  ex: Exchange;
  seq: number;
  opId: string;
  method: string;
  pathname: string;
  /** The query string (after `?`), or ''. */
  search: string;
  status: number;
  /** The path parameters, percent-decoded. */
  params: Record<string, string>;
  /** The caller's merchant (a key-authenticated operation), or null (a session token's, none). */
  merchant: MerchantMemory | null;
  /** The session token a session-token operation was called with. */
  token: string | undefined;
  /** A test key (`sk_test_…`) or a masked one (which may be a test key): its merchant's sandbox clock may be advanced. */
  testKey: boolean;
  /** The variant pinned for the caller, if known, and the variants the answer may be judged by. */
  pin: VariantPin | undefined;
  variants: Variant[];
  /** The request asked for a simulated failure (ADR-052): its answer did not run the call. */
  simulated: boolean;
  /** The answer was cut by the ear: only its status is judged. */
  truncated: boolean;
  /** The request's body, parsed (undefined: none, cut, or not JSON), and whether it could not be read. */
  requestJson: unknown;
  requestUnreadable: boolean;
  json: unknown;
  sentAt: number;
  receivedAt: number;
}

/** The judging of one exchange or delivery: the memory, the settings, and the findings so far. */
export interface Judging {
  memory: JudgeMemory;
  settings: Settings;
  out: Finding[];
}

/**
 * Whether what `s` shows of its merchant's sandbox was made by calls the judge has seen: the ear is
 * its keys' sole client, no other exchange that may change something was open when this one's
 * answer ended (one answered later may have made an effect this answer shows), and no call of the
 * merchant (or of a session the judge cannot place) went through the ear unjudged.
 * @judges ADR-087
 */
export function causesSeen(s: Seen, j: Judging): boolean {
  return everyCallSeen(j, s.merchant) && s.ex.othersOpen === false;
}

/**
 * Whether every call of merchant `m` passes through the ear: it is its keys' sole client (ADR-087),
 * and none of the merchant's calls (nor one the judge cannot place) went through unjudged. Otherwise
 * another client of the key may, at any moment, advance or reset its clock, redeliver its webhooks,
 * enable its endpoint, delete its data, or spend its A1 window.
 */
export function everyCallSeen(j: Judging, m: MerchantMemory | null): boolean {
  return j.settings.soleClient && !m?.unjudgedCall && !j.memory.unjudgedUnknownCall;
}

/**
 * Whether merchant `m`'s sandbox may change by a call the judge does not see: a test key's (the
 * sandbox operations take test keys only, ADR-020) whose every call it may not assume it sees;
 * `m` null, a merchant it cannot place, which may be a test key's.
 */
export function sandboxMayChangeUnseen(j: Judging, m: MerchantMemory | null): boolean {
  return (m === null || m.testKey) && !everyCallSeen(j, m);
}

/**
 * An answer shows merchant `m`'s data gone that the judge saw exist (a 404 for its transaction, a
 * list or an outbox read whole without it, its vendorReference taken again): true when that may be
 * a reset deleting the data (ADR-041) by another client of a test key, which the judge did not see
 * (`everyCallSeen` false). The judge then forgets the merchant's data, as after a deleting reset it
 * saw, and reports nothing; false when the absence is the server's to answer for.
 */
export function deletedUnseen(j: Judging, m: MerchantMemory): boolean {
  if (!sandboxMayChangeUnseen(j, m)) return false;
  forgetMerchantData(j.memory, m);
  return true;
}

/**
 * Whether a list read whole shows that transaction `goneId`, missing from it, was not deleted
 * unseen: its last page (read after every earlier one) lists a transaction of the same merchant
 * (`lastPage`, their ids) whose making the ear saw end before the missing one's making began. A
 * deleting reset takes all of a merchant's records at one instant (ADR-041) and a page is read at
 * one instant (ADR-028): one that took the missing transaction would have taken that older one
 * too, so none came before the last page, and every page was read while the missing one was there.
 * @judges ADR-041
 */
export function deletionRuledOut(memory: JudgeMemory, goneId: string, lastPage: Iterable<unknown>): boolean {
  const gone = memory.transactions.get(goneId);
  const goneMade = gone && madeDuring(memory, gone);
  if (gone === undefined || goneMade === undefined) return false;
  for (const id of lastPage) {
    const tx = typeof id === 'string' ? memory.transactions.get(id) : undefined;
    const made = tx?.merchant === gone.merchant ? madeDuring(memory, tx) : undefined;
    if (made !== undefined && made.to <= goneMade.from) return true;
  }
  return false;
}

/** The variant a caller is judged in: the pinned one, else the first the answer may be judged by. */
export const variantOf = (s: Seen): Variant => s.pin?.variant ?? s.variants[0]!;

/** What a finding is made from: the exchange at hand, and the earlier exchanges that show it too. */
export interface FindingOf {
  kind: FindingKind;
  at: { seq: number; opId: string };
  txId?: string;
  /** Earlier exchanges (a transaction's first and latest, the page that gave a cursor). */
  earlier?: readonly number[];
  jsonPath: string;
  message: string;
  expected?: unknown;
  actual?: unknown;
}

/** The one builder of findings: its exchanges the earlier ones and the one at hand, in order, each once. */
export function finding({ kind, at, txId, earlier = [], jsonPath, message, expected, actual }: FindingOf): Finding {
  const exchanges = [...new Set([...earlier, at.seq])].sort((a, b) => a - b);
  return { kind, operation: at.opId, jsonPath, message, txId, exchanges, expected, actual };
}

/** The exchanges of a remembered transaction a finding about it shows (its first and latest). */
export const around = (tx: { firstExchange: number; lastExchange: number } | undefined): number[] =>
  tx ? [tx.firstExchange, tx.lastExchange] : [];

export type Json = Record<string, unknown>;
export const isRecord = (j: unknown): j is Json => typeof j === 'object' && j !== null && !Array.isArray(j);

/** The error code of an answer, if it has one. */
export const errorCode = (j: unknown): string | undefined => {
  const c = isRecord(j) && isRecord(j.error) ? j.error.code : undefined;
  return typeof c === 'string' ? c : undefined;
};

/** The most timestamps `time` remembers, then it starts afresh. */
const TIMES_KEPT = 1000;
/** The longest string `time` remembers (an RFC 3339 instant with nanoseconds and an offset is 35). */
const TIME_KEPT_LENGTH = 64;
/** A timestamp's parse, remembered: a polled record shows the same two again and again. */
const parsedTime = memoized(
  TIMES_KEPT,
  (v: string): number | null => {
    const ms = Date.parse(v);
    return Number.isNaN(ms) ? null : ms;
  },
  TIME_KEPT_LENGTH,
);

/** A timestamp's ms, or null when absent or not a date (the answer judge reports the schema). */
export const time = (v: unknown): number | null => (typeof v === 'string' ? parsedTime(v) : null);
