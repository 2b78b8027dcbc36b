/**
 * What the model knows, as plain data: the transactions by merchant with their status, the
 * vendorReferences used, the names learned, the events expected, the sandbox clock offsets and the
 * rate-limit windows, and time as intervals known from the observed clock (performance.now() of
 * the exchanges that showed it). No client, no I/O: the Real side (`world.ts`) writes what it
 * observed into it, and every command's precondition reads it alone, so a seed and path replay the
 * same command sequence.
 */
import type { stateMachine } from '../generated/index.ts';
import type { WriteKeys } from '../model/index.ts';
import type { Contract } from '../judge/contract.ts';

export type Who = 'main' | 'other';
export type Status = keyof typeof stateMachine.states;
type Json = Record<string, unknown>;

export interface Tx {
  id: string;
  who: Who;
  kind: 'partner' | 'checkout';
  status: Status;
  vendorReference: string | null;
  created: Json;
  sentAt: number;
  receivedAt: number;
  advAtCreation: number;
  session?: Session;
  runId: number;
  /** The instant of its last change as the API answered it (the change's own answer), once the suite made one. */
  changedAt?: string;
  /** The events its transitions in the model emitted (x-state-machine), in order. */
  emitted?: string[];
  /** Each repeated value as the transaction first showed it, by name (`repeated.ts`): every later answer, record and event repeats it. */
  shown?: Record<string, unknown>;
  /** By the status it led to, the exchange of each move the suite made on it, with the seconds advanced then (`instants.ts`). */
  changes?: Partial<Record<Status, { sentAt: number; receivedAt: number; adv: number }>>;
}

export interface Session {
  token: string;
  who: Who;
  total: number;
  sentAt: number;
  receivedAt: number;
  advAtCreation: number;
  tx?: Tx;
}

export interface ExpectedEvent {
  txId: string;
  event: string;
  transition: string;
  runId: number;
  /** performance.now() when the suite saw the transition (its answer read). */
  at: number;
}

/**
 * A key's rate-limit window as the model knows it: requests used and the window's end (performance.now()
 * ms plus the seconds the key's sandbox clock was advanced), as bounds; and, once an answer showed
 * the window's first counted request, that request's interval on the same axis (`start`).
 */
export interface RateWindow {
  usedLo: number;
  usedHi: number;
  endLo: number;
  endHi: number;
  start?: { from: number; to: number };
}

/**
 * A write the suite made (a request other than GET or HEAD, with a merchant's key), not read back
 * yet from the other merchant (`witness.ts`): who made it, its operation and answer, the keys it named.
 */
export interface WriteSeen {
  who: Who;
  opId: string;
  status: number;
  method: string;
  path: string;
  keys: WriteKeys;
  /** A sandbox operation naming no record: it changes its merchant's sandbox state (clock, endpoint, rule, log). */
  merchantWide: boolean;
  runId: number;
}

/** The main merchant's sandbox clock (ms since the epoch) read at `perf`, known within ± `halfWidthMs`. */
export interface ClockAnchor {
  serverMs: number;
  perf: number;
  halfWidthMs: number;
}

export interface ModelState {
  /** The contract the run judges by (spec facts: read-only data). */
  readonly contract: Contract;
  readonly sandbox: boolean;
  /** The server's configured payment window (s), if the run was told one; else the spec's default holds (`paymentWindowSeconds` in commands/advanceClock.ts). */
  readonly paymentWindowSeconds: number | undefined;
  /** Whether webhooks are received (events are expected only then). */
  receivesWebhooks: boolean;
  readonly txs: Map<string, Tx>;
  readonly expected: ExpectedEvent[];
  /** Seconds the suite advanced each merchant's sandbox clock (to the millisecond: ADR-085). */
  readonly advanced: Record<Who, number>;
  readonly rate: Record<Who, RateWindow>;
  /** `moves`: (operation, status before, answer) triples the run drove with a certain status before (`commands/moves.ts`). */
  /** `edges`: the time limits probed just inside and at their end within a second, as `<edge> <side>` (`edges.ts`). */
  readonly coverage: { transitions: Set<string>; codes: Set<string>; moves: Set<string>; edges: Set<string> };
  readonly usedVendorRefs: Record<Who, Set<string>>;
  /** Names learned once per merchant (from its first created record) and checked everywhere they appear. */
  readonly names: Record<Who, { merchantName?: unknown; storeName?: unknown }>;
  /** Runs that failed: their late webhook deliveries are ignored. */
  readonly abandonedRuns: Set<number>;
  runId: number;
  /** The main merchant's sandbox clock after the setup's advance (sandbox profile only). */
  clockAnchor: ClockAnchor | undefined;
  /** The main merchant's sandbox clock offset (s, to the millisecond) when the suite started. */
  clockBase: number | undefined;
  /** performance.now() when the latest answer arrived: the latest instant the model knows the time at. */
  observedAt: number;
  /** The recent exchanges' round trip (ms): the longest of them, forgotten slowly (the margin of a probe from inside a limit). */
  roundTripMs: number;
  /** A1 requests sent so far (counted or not by the server). */
  a1Sent: number;
  /** The main key's A1 requests the coverage tour spends (`a1Cost` of its commands): named when a core run's budget was short. */
  a1TourCost: number;
  bursts: number;
  /** A1 answers that were 429. */
  rate429: number;
  /** Whether the coverage tour (not the random search) is running. */
  inTour: boolean;
  /** The writes made since the witnesses were last read back (`witness.ts`). */
  readonly writes: WriteSeen[];
  /** The other merchant's sandbox state as last read, by the GET operation that shows it (`witness.ts`). */
  readonly otherSandbox: Map<string, unknown>;
  /** Checkout sessions each merchant's key created in this suite (A1 successes): a reset with `deleteData` deletes at least these. */
  readonly sessionsCreated: Record<Who, number>;
}

/** A window nothing is known about: anything from unused to spent, ending at any time. */
export function unknownWindow(limit: number): RateWindow {
  return { usedLo: 0, usedHi: limit, endLo: -Infinity, endHi: Infinity };
}

export function newModelState(contract: Contract, profile: 'core' | 'sandbox', paymentWindowSeconds?: number): ModelState {
  const limit = contract.rateLimits.createSession!.limit;
  return {
    contract,
    sandbox: profile === 'sandbox',
    paymentWindowSeconds,
    receivesWebhooks: false,
    txs: new Map(),
    expected: [],
    advanced: { main: 0, other: 0 },
    rate: { main: unknownWindow(limit), other: unknownWindow(limit) },
    coverage: { transitions: new Set(), codes: new Set(), moves: new Set(), edges: new Set() },
    usedVendorRefs: { main: new Set(), other: new Set() },
    names: { main: {}, other: {} },
    abandonedRuns: new Set(),
    runId: 0,
    clockAnchor: undefined,
    clockBase: undefined,
    observedAt: 0,
    roundTripMs: 0,
    a1Sent: 0,
    a1TourCost: 0,
    bursts: 0,
    rate429: 0,
    inTour: false,
    writes: [],
    otherSandbox: new Map(),
    sessionsCreated: { main: 0, other: 0 },
  };
}
