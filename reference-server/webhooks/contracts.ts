/**
 * The seam between the reference server's core (store, state machine, routes) and its
 * webhook delivery engine. The core writes an `OutboxEvent` in the SAME store write as
 * the state change that causes it (durable outbox); the engine only claims due events
 * and records attempts through `WebhookRepository`, which the core's store implements.
 */
import type { DeliveryAttempt, DeliveryState, OutboxEvent } from '../domain/outbox-event.ts';

/** What the delivery engine needs from storage. Every method resolves after the write is on disk. */
export interface WebhookRepository {
  /**
   * Claims events in state `pending` whose `nextAttemptAt` <= the merchant's now, oldest first,
   * at most `limit`: a claimed event is not claimed again (by this or another instance) until
   * an attempt or state is recorded for it, or its lease runs out (the claimer died).
   */
  claimDue(limit: number): Promise<OutboxEvent[]>;
  get(merchantId: string, id: string): Promise<OutboxEvent | undefined>;
  /** Newest first. */
  list(merchantId: string): Promise<OutboxEvent[]>;
  /**
   * Appends one attempt and sets the new state / nextAttemptAt, in one write. When the state is
   * `disabled` (the receiver answered 410), the merchant's endpoint is disabled in that same
   * write: no reader sees the delivery disabled and the endpoint enabled, and a crash leaves
   * both or neither.
   */
  recordAttempt(
    merchantId: string,
    id: string,
    attempt: DeliveryAttempt,
    next: { state: DeliveryState; nextAttemptAt: string | null },
  ): Promise<OutboxEvent>;
  /** Redelivery: sets state `pending` and nextAttemptAt to now (merchant's clock). */
  requeue(merchantId: string, id: string, nextAttemptAt: string): Promise<OutboxEvent>;
  /**
   * Sets the state without an attempt, for an event that cannot be attempted: `no_endpoint`
   * (the merchant has no URL or secret) or `disabled` (its endpoint was disabled by a 410 of
   * another event).
   */
  setState(merchantId: string, id: string, next: { state: DeliveryState; nextAttemptAt: string | null }): Promise<OutboxEvent>;
}

/** What the engine needs to know of a merchant. */
export interface WebhookEndpoint {
  merchantId: string;
  url: string | null;
  /** `whsec_…` */
  secret: string | null;
  /** Secrets of an open rotation window (ADR-042): each signs too, after `secret`. */
  previousSecrets?: string[];
  /** false once the endpoint answered 410 (until a redelivery re-enables it). */
  enabled: boolean;
}

export interface MerchantDirectory {
  endpoint(merchantId: string): WebhookEndpoint | undefined;
  /** Marks the endpoint enabled again (redelivery) or disabled. Persisted by the core. A 410 disables it through `recordAttempt`, in the same write as the attempt. */
  setEndpointEnabled(merchantId: string, enabled: boolean): Promise<void>;
}

/** The merchant-aware clock: each sandbox merchant has its own offset (ADR-020). */
export interface MerchantClock {
  now(merchantId: string): Date;
}

/** The engine the core starts: `createWebhookDispatcher(deps)` in `./dispatcher.ts`. */
export interface WebhookDispatcher {
  /** Starts background delivery (timers); never blocks API requests. */
  start(): void;
  /** Stops timers and waits for in-flight attempts to finish. */
  stop(): Promise<void>;
  /** Called by the core right after a write that added events or moved a clock: deliver what is due now. */
  kick(): void;
  /** Sandbox redelivery of one event (same id and body, new timestamp and signature). */
  redeliver(merchantId: string, id: string): Promise<OutboxEvent | undefined>;
  /** Resolves when nothing is due and nothing is in flight (for tests and the sandbox clock). */
  idle(): Promise<void>;
}

export interface WebhookDispatcherDeps {
  repository: WebhookRepository;
  merchants: MerchantDirectory;
  clock: MerchantClock;
  mode: 'sandbox' | 'production';
  /** Sandbox: the schedule of x-webhook-delivery runs this many times faster. */
  compression: number;
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Seeded jitter for reproducible tests; defaults to Math.random. */
  random?: () => number;
  log?: (line: string) => void;
  /** Attempts in flight at once (default 8). */
  concurrency?: number;
  /** Per-attempt timeout in ms (default `webhookDelivery.retry.timeoutSeconds` * 1000); shorter in tests. */
  timeoutMs?: number;
  /** Safety-net poll of `claimDue` in ms (default 1000): finds events written without a `kick()`. */
  pollIntervalMs?: number;
  /** Wall-clock ms for `webhook-timestamp` (receivers check it against their own clock; default Date.now). */
  realNow?: () => number;
  /** DNS resolution used by the URL policy at delivery time (default the system resolver). */
  resolve?: (hostname: string) => Promise<Array<{ address: string; family: number }>>;
}
