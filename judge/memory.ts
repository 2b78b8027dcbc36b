/**
 * The judge's one memory: plain, named data, bounded. Per merchant (a digest of its key, or the
 * masked key itself: `MASKED_<hex>` is just another merchant id, so a HAR needs no keys) a record of
 * fixed-size fields (its clock as answered, its names, its rate window, its fault rule, its webhook
 * endpoint); per judge the collections keyed by an id (transactions, tokens, cursors, deliveries),
 * each bounded by `maxTransactions`, the oldest going first (a JavaScript Map keeps insertion order).
 *
 * A transaction is kept in a handful of plain fields (TransactionMemory): its merchant, reference,
 * kind, the statuses it may be in (one of the interned `StatusSet`s: a shared array, no copy per
 * transaction), the statuses before its latest change and when that change was seen, its
 * timestamps, a fingerprint of its immutable fields, when and how it was made through the ear.
 */
import type { Variant } from '../generated/index.ts';
import type { Interval } from '../model/index.ts';
import type { StatusSet } from './statuses.ts';

/** One transaction as the judge remembers it. */
export interface TransactionMemory {
  /** The merchant id (one string shared by all its transactions). */
  merchant: string;
  vendorReference: string | null;
  kind: 'partner' | 'checkout';
  /** The statuses it may be in now: one after an answer showed it, several after a refusal by state or at first sight. */
  possibleStatuses: StatusSet;
  /**
   * The statuses before its latest change, and when the answer showing that change ended (ms after
   * the judge's origin, not rounded: `keptExactly`): a read sent before may still show them.
   */
  statusesBeforeLastChange: StatusSet;
  lastChangeSeenAt: number;
  /** When (`kept` ms) the latest exchange showing it began: a change shown later happened after that. */
  lastSeenSentAt: number;
  /**
   * Its createdAt on the server's clock (ms): as a record answered it (B1, a read, the sandbox list),
   * or, for a checkout transaction no record showed yet, the earliest the server's clock can have read
   * when it was made (at its paying exchange, or its session's A1: judge/sessions.ts); null when not known.
   */
  createdAt: number | null;
  /** How much later than `createdAt` the creation can have been: 0 when answered, else up to the paying exchange's end. */
  createdWithinMs: number;
  /** Its updatedAt as last answered (ms), null while PENDING or not seen. */
  updatedAt: number | null;
  /** A fingerprint of its immutable fields' canonical JSON (member order never counts); 0 when not seen. */
  immutableFingerprint: number;
  /** A print of those fields as the latest answer wrote them (member order kept): equal, the fingerprint is too. */
  lastAnswerPrint: number;
  /** The first and the latest exchange about it (their `seq`). */
  firstExchange: number;
  lastExchange: number;
  /**
   * When the exchange that made it through the ear (B1, or the paid session) began (`kept` ms), and
   * how long it lasted; null when made elsewhere or before the judge started. Two numbers, not an
   * interval object: the measured memory per transaction (judge/memory.test.ts) asked for it.
   */
  madeAt: number | null;
  madeWithinMs: number;
  /** A small hash of its customerPhone as first shown (B1's answer, the paying request, A2, an event); 0 when not known. */
  customerPhoneHash: number;
  /** The event its latest change emitted, when the exchange that made the change ran (a cancel, a sandbox move): the event was made then. */
  eventMadeDuring?: Interval & { event: string };
  /** Events expected from transitions seen, and events received with no transition yet (webhooks judged). */
  events?: EventMemory[];
}

/** An event of a transaction: expected from a transition seen, or received and waiting for its transition. */
export interface EventMemory {
  name: string;
  transition?: string;
  /** When (epoch ms) the transition was seen, or the event received. */
  at: number;
  received: boolean;
  webhookId?: string;
}

/** A merchant's sandbox clock as its answers showed it. */
export interface ClockMemory {
  /** The latest clock answers (`sandboxGetClock`, `…Advance…`, `sandboxReset`): the offset (s) and the exchange's interval (epoch ms). Eight kept. */
  answers: { sentAt: number; receivedAt: number; offsetMs: number }[];
  /** When the latest answer that put the clock back (a reset) ended; -Infinity when none was seen. */
  setBackAt: number;
}

/** A key's rate-limit window as its answers showed it. */
export interface RateWindow {
  /** When the window ends (the server's clock), from its answers' waits; null while unknown. */
  end: Interval | null;
  /** When (ear ms, epoch) the earliest answer `end` was read from began (`earSlack`); NaN while `end` is null. */
  endSince: number;
  /** Counted requests seen in the window, or null when it began before the judge knew (its start not seen). */
  used: number | null;
  /** When (epoch ms) the answer showing the window full ended, and its exchange; NaN: not full. */
  fullAt: number;
  fullExchange: number;
  /**
   * `end` is on the ear's clock, not the server's: a test key's sandbox offset was not known yet, but
   * a sole client's judge (ADR-087) saw no call that could move it, so the window's waits hold
   * between instants of the ear. Forgotten once the offset is known or the assumption lapses.
   */
  onEarClock: boolean;
}

/** A window of which nothing is known but, when `used` is 0, that the next counted request opens it. */
export const unknownRateWindow = (used: number | null, onEarClock: boolean): RateWindow => ({
  end: null,
  endSince: NaN,
  used,
  fullAt: NaN,
  fullExchange: 0,
  onEarClock,
});

/** A fault rule as answered (ADR-052), and the calls it answered since. */
export interface FaultRule {
  /** Its id as answered (null when the answer showed none). */
  id: string | null;
  failure: string;
  /** The wait its 429s answer, as the rule names it (null: none named, `x-simulate`'s). */
  retryAfterSeconds: number | null;
  operations: string[];
  remaining: number;
  /** When (epoch ms) the answer showing it ended, and its exchange. */
  since: number;
  answeredBy: number;
  /** When the latest call the rule could have answered ended. */
  lastCallEnd: number;
}

/** One merchant (its key's digest, or the masked key). */
export interface MerchantMemory {
  id: string;
  /** Seen with a test key (`sk_test_…`, or a masked key): its sandbox clock may have been advanced before the judge saw it. */
  testKey: boolean;
  /** vendorReference → the transaction holding it. */
  byVendorReference: Map<string, string>;
  clock: ClockMemory;
  /** Its names as first shown. */
  names: { merchantName?: unknown; storeName?: unknown };
  rateWindow: RateWindow | null;
  /** The fault rule as answered (ADR-052), its calls counted down as answered; and whether one was answered with calls left (its A1 answers count nothing). */
  faultRule: FaultRule | null;
  faultRuleOn: boolean;
  /** An answer (the rule set or read, a reset) showed the rule, or that there is none: `faultRule` null means none. */
  faultRuleKnown: boolean;
  endpoint: {
    /** The first webhook URL answered: taken as the one reaching the ear. */
    firstUrl: string | null;
    /** Answered pointing elsewhere, or disabled: its events go elsewhere. */
    elsewhere: boolean;
    /** One of its events reached the ear: it is judged on missing events. */
    eventsReachEar: boolean;
    /** The latest enabling (a PUT or a redelivery answered): when its answer ended (epoch ms). */
    enabledAt: number;
    /** A listed 410 attempt made after the latest enabling: the list's exchange and when its answer ended. */
    disabledBy: { exchange: number; at: number } | null;
    /** Its URL and secret as the latest answer showed them (GET, PUT, a rotation), its exchange and when it ended; null: not known (none yet, or a reset since). */
    shown: { url: unknown; secret: unknown; seq: number; receivedAt: number } | null;
  };
  /** Per operation, path and status: the Origin values its calls carried since the API log was last started (ADR-056). */
  apiLogOrigins: Map<string, Set<string | null>>;
  /** Every call of the merchant since its API log's recording started is in `apiLogOrigins` (its sole client's ear saw the start with no call open, and forgot none: ADR-087). */
  apiLogComplete: boolean;
  /** A call of the merchant went through the ear unjudged (`Judge.unjudged`): what changed its sandbox is no longer all seen. */
  unjudgedCall: boolean;
}

/** A session token as its A1 answer showed it. */
export interface TokenMemory {
  merchant: string;
  /** When it was issued, on its merchant's server clock; null when its lifetime is not judged (an A1 under a fault rule). */
  issued: Interval | null;
  issuedBy: number;
  /** When (ear ms, epoch) the exchange that issued it began: its lifetime is judged against later exchanges with `earSlack`. */
  issuedSentAt: number;
  /** The variant of the key that got it, once pinned. */
  variant?: VariantPin;
  /** The checkout transaction its session paid, and whether a read of it accepted the token. */
  paidTransaction?: string;
  acceptedOnce?: boolean;
}

/** What a key (or token) was pinned by: its variant and the exchange that showed it (ADR-070). */
export interface VariantPin {
  variant: Variant;
  seq: number;
}

/** A page of a list that gave a next cursor: what the page asked with it must not repeat, and the read it belongs to. */
export interface PageMemory {
  ids: Set<string>;
  seq: number;
  walk: ListWalk | undefined;
  /** The list's order so far (pages.ts `OrderState`): the next page continues it. */
  order: { edge: number; id: string | undefined };
}

/** A list read page by page from its first: its items so far, when its first page was asked for, its query (the cursor aside). */
export interface ListWalk {
  items: Record<string, unknown>[];
  sentAt: number;
  query: URLSearchParams;
  first: number;
}

/** A webhook delivery the lists showed: what is known of when its attempts were made. */
export interface DeliveryMemory {
  /** The exchange of the list that first showed it (null: known from a redelivery only). */
  listedSeq: number | null;
  /** Attempts listed the latest time it was listed, and when that list's exchange began. */
  attemptsListed: number;
  listedSentAt: number;
  /** Per attempt: the earliest (epoch ms) it can have been made (-Infinity: before the judge knew). */
  attemptAfter: number[];
  redelivered: boolean;
}

export interface JudgeMemory {
  readonly max: number;
  /** The ear's instant (epoch ms) the transactions' own instants are kept after (`kept`): its first exchange's. */
  origin: number;
  merchants: Map<string, MerchantMemory>;
  transactions: Map<string, TransactionMemory>;
  tokens: Map<string, TokenMemory>;
  /** Checkout transaction → the token of the session that paid it. */
  payers: Map<string, string>;
  /** Keys (merchant ids) pinned to a variant, and how many per variant (a key forgotten is counted again when learned again). */
  keyVariants: Map<string, VariantPin>;
  pinned: Record<Variant, number>;
  /** merchant + operation + cursor → the page that gave the cursor. */
  pages: Map<string, PageMemory>;
  /** merchant + delivery id → what the lists showed of it. */
  deliveries: Map<string, DeliveryMemory>;
  /** merchant + vendorReference → the exchange of a simulated B1 failure naming it (nothing was stored). */
  simulatedReferences: Map<string, number>;
  /** Per operation and 404 code: the first answer's text (its request's values masked), and its exchange. */
  notFound: Map<string, { text: string; seq: number }>;
  /** Per credential: its latest exchange when it was a GET (a HEAD of the same URL answers as it did). */
  lastGet: Map<string, { url: string; status: number; seq: number }>;
  /** merchant + webhook-id → the canonical body first received under it (a repeat carries the same). */
  webhookBodies: Map<string, string>;
  /** The signing secrets the webhook endpoints' answers showed (current and previous), the latest last: a rotated secret signs what follows. */
  webhookSecrets: string[];
  /** The server's real clock less the ear's (ms), as the Date headers bound it. */
  dateSkew: Interval;
  /** When (ear ms) the Date headers last changed whether the judge takes the server's clock as shifted from the ear's (`earSlack`); -Infinity: never. */
  skewBasisSince: number;
  /** What the traffic exercised. */
  seen: {
    operations: Map<string, number>;
    statuses: Set<string>;
    codes: Set<string>;
    transitions: Set<string>;
    events: Set<string>;
    unrouted: number;
    deliveries: number;
    unknownTransactionEvents: number;
  };
  /** Transactions dropped by the bound. */
  dropped: number;
  /** A call went through the ear unjudged naming no merchant the judge knows (a session token it never saw issued): it may have been any merchant's. */
  unjudgedUnknownCall: boolean;
}

export const DEFAULT_MAX_TRANSACTIONS = 100_000;

export function newMemory(max = DEFAULT_MAX_TRANSACTIONS): JudgeMemory {
  return {
    max,
    origin: NaN,
    merchants: new Map(),
    transactions: new Map(),
    tokens: new Map(),
    payers: new Map(),
    keyVariants: new Map(),
    pinned: { 1: 0, 2: 0 },
    pages: new Map(),
    deliveries: new Map(),
    simulatedReferences: new Map(),
    notFound: new Map(),
    lastGet: new Map(),
    webhookBodies: new Map(),
    webhookSecrets: [],
    dateSkew: { from: -Infinity, to: Infinity },
    skewBasisSince: -Infinity,
    seen: {
      operations: new Map(),
      statuses: new Set(),
      codes: new Set(),
      transitions: new Set(),
      events: new Set(),
      unrouted: 0,
      deliveries: 0,
      unknownTransactionEvents: 0,
    },
    dropped: 0,
    unjudgedUnknownCall: false,
  };
}

/**
 * An ear's instant (epoch ms) as a transaction keeps it: whole ms after the judge's origin (its first
 * exchange), rounded `down` (a bound from below) or up. A small integer V8 holds in the object itself,
 * where an epoch ms is a number boxed on its own: the measured memory per transaction
 * (judge/memory.test.ts) asked for it. `epoch` turns it back.
 */
export function kept(memory: JudgeMemory, epochMs: number, down: boolean): number {
  const exact = keptExactly(memory, epochMs);
  return down ? Math.floor(exact) : Math.ceil(exact);
}
export const epoch = (memory: JudgeMemory, keptMs: number): number => memory.origin + keptMs;

/**
 * An ear's instant as `kept`, not rounded: for an instant compared with the next request's own, where
 * a whole millisecond is more than a client takes to send its next request (rounded up, a read sent
 * 0.3 ms after a cancel's answer ended would pass for one sent while the cancel was in flight).
 */
export function keptExactly(memory: JudgeMemory, epochMs: number): number {
  if (Number.isNaN(memory.origin)) memory.origin = Math.floor(epochMs);
  return epochMs - memory.origin;
}

/** A `kept` instant before anything the judge saw (a change never seen). */
export const NEVER = -(2 ** 30);

/** The interval (epoch ms) of the exchange that made `tx` through the ear, or undefined. */
export const madeDuring = (memory: JudgeMemory, tx: TransactionMemory): Interval | undefined =>
  tx.madeAt === null ? undefined : { from: epoch(memory, tx.madeAt), to: epoch(memory, tx.madeAt + tx.madeWithinMs) };

/** Sets `key` in a bounded map: past `max` entries the oldest goes. */
export function remember<K, V>(map: Map<K, V>, key: K, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value as K);
}

/** The merchant record of `id`, made at its first sight (bounded like the transactions). */
export function merchantOf(memory: JudgeMemory, id: string): MerchantMemory {
  let m = memory.merchants.get(id);
  if (m) return m;
  m = {
    id,
    testKey: false,
    byVendorReference: new Map(),
    clock: { answers: [], setBackAt: -Infinity },
    names: {},
    rateWindow: null,
    faultRule: null,
    faultRuleOn: false,
    faultRuleKnown: false,
    endpoint: { firstUrl: null, elsewhere: false, eventsReachEar: false, enabledAt: -Infinity, disabledBy: null, shown: null },
    apiLogOrigins: new Map(),
    apiLogComplete: false,
    unjudgedCall: false,
  };
  remember(memory.merchants, id, m, memory.max);
  return m;
}

/** Keeps a transaction; past the bound the oldest seen goes, with its vendorReference. */
export function addTransaction(memory: JudgeMemory, id: string, tx: TransactionMemory): void {
  memory.transactions.set(id, tx);
  if (tx.vendorReference !== null) memory.merchants.get(tx.merchant)?.byVendorReference.set(tx.vendorReference, id);
  while (memory.transactions.size > memory.max) {
    const [oldId, old] = memory.transactions.entries().next().value as [string, TransactionMemory];
    memory.transactions.delete(oldId);
    const refs = memory.merchants.get(old.merchant)?.byVendorReference;
    if (old.vendorReference !== null && refs?.get(old.vendorReference) === oldId) refs.delete(old.vendorReference);
    memory.dropped++;
  }
}

/** A merchant's sandbox data deleted (a reset with `deleteData`): its transactions, tokens and rate window are not known any more. */
export function forgetMerchantData(memory: JudgeMemory, m: MerchantMemory): void {
  for (const [id, tx] of memory.transactions) if (tx.merchant === m.id) memory.transactions.delete(id);
  m.byVendorReference.clear();
  for (const [k, t] of memory.tokens) if (t.merchant === m.id) memory.tokens.delete(k);
  m.rateWindow = null;
}
