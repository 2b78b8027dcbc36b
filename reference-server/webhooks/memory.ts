/**
 * An in-memory implementation of the webhook seam (repository, merchant directory, per-merchant
 * clock) with the same semantics the core's store must have: snapshots (never live objects)
 * are returned, `claimDue` compares `nextAttemptAt` with each merchant's own clock and holds a
 * claimed event until an attempt or state is recorded for it. Used by the
 * engine's tests; the reference server uses its durable store instead.
 */
import type { DeliveryAttempt, DeliveryState, OutboxEvent, WebhookEventName, WebhookPayload } from '../domain/outbox-event.ts';
import type { MerchantClock, MerchantDirectory, WebhookEndpoint, WebhookRepository } from './contracts.ts';
import { generateMessageId } from './signing.ts';

export class MemoryWebhookStore implements WebhookRepository, MerchantDirectory, MerchantClock {
  private readonly events = new Map<string, OutboxEvent>();
  private readonly endpoints = new Map<string, WebhookEndpoint>();
  private readonly offsets = new Map<string, number>();
  /** Events claimed by `claimDue` and not written since. */
  private readonly claimed = new Set<string>();
  /** Every write, for assertions. */
  readonly writes: Array<{ op: string; id: string; state?: DeliveryState }> = [];

  private static key(merchantId: string, id: string) {
    return `${merchantId}\u0000${id}`;
  }

  // ---------------------------------------------------------------- clock
  now(merchantId: string): Date {
    return new Date(Date.now() + (this.offsets.get(merchantId) ?? 0));
  }
  /** Moves a merchant's clock forward (sandbox clocks never go back). */
  advance(merchantId: string, ms: number): void {
    if (ms < 0) throw new RangeError('clocks only move forward');
    this.offsets.set(merchantId, (this.offsets.get(merchantId) ?? 0) + ms);
  }

  // ---------------------------------------------------------------- merchants
  setEndpoint(merchantId: string, url: string | null, secret: string | null, enabled = true): void {
    this.endpoints.set(merchantId, { merchantId, url, secret, enabled });
  }
  endpoint(merchantId: string): WebhookEndpoint | undefined {
    const e = this.endpoints.get(merchantId);
    return e && { ...e };
  }
  async setEndpointEnabled(merchantId: string, enabled: boolean): Promise<void> {
    const e = this.endpoints.get(merchantId);
    if (e) e.enabled = enabled;
  }

  // ---------------------------------------------------------------- events (the core's side)
  /** What the core does in the same write as a state change. */
  addEvent(merchantId: string, event: WebhookEventName, payload: WebhookPayload, transactionId: string): OutboxEvent {
    const ep = this.endpoints.get(merchantId);
    const createdAt = this.now(merchantId).toISOString();
    const hasEndpoint = !!ep?.url && !!ep.secret;
    const e: OutboxEvent = {
      id: generateMessageId(),
      merchantId,
      event,
      transactionId,
      payload: structuredClone(payload),
      createdAt,
      state: hasEndpoint ? 'pending' : 'no_endpoint',
      url: ep?.url ?? null,
      nextAttemptAt: hasEndpoint ? createdAt : null,
      attempts: [],
    };
    this.events.set(MemoryWebhookStore.key(merchantId, e.id), e);
    this.writes.push({ op: 'add', id: e.id, state: e.state });
    return structuredClone(e);
  }

  all(): OutboxEvent[] {
    return [...this.events.values()].map((e) => structuredClone(e));
  }

  // ---------------------------------------------------------------- WebhookRepository
  async claimDue(limit: number): Promise<OutboxEvent[]> {
    const due: OutboxEvent[] = [];
    for (const [k, e] of this.events) {
      if (e.state !== 'pending' || e.nextAttemptAt === null || this.claimed.has(k)) continue;
      if (Date.parse(e.nextAttemptAt) <= this.now(e.merchantId).getTime()) due.push(e);
    }
    due.sort(
      (a, b) => Date.parse(a.nextAttemptAt as string) - Date.parse(b.nextAttemptAt as string) || a.createdAt.localeCompare(b.createdAt),
    );
    const claimed = due.slice(0, limit);
    for (const e of claimed) this.claimed.add(MemoryWebhookStore.key(e.merchantId, e.id));
    return claimed.map((e) => structuredClone(e));
  }

  async get(merchantId: string, id: string): Promise<OutboxEvent | undefined> {
    const e = this.events.get(MemoryWebhookStore.key(merchantId, id));
    return e && structuredClone(e);
  }

  async list(merchantId: string): Promise<OutboxEvent[]> {
    return [...this.events.values()]
      .filter((e) => e.merchantId === merchantId)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
      .map((e) => structuredClone(e));
  }

  /** Ends the claim on the event (a write recorded for it) and returns it. */
  private must(merchantId: string, id: string): OutboxEvent {
    this.claimed.delete(MemoryWebhookStore.key(merchantId, id));
    const e = this.events.get(MemoryWebhookStore.key(merchantId, id));
    if (!e) throw new Error(`no event ${id} for ${merchantId}`);
    return e;
  }

  async recordAttempt(
    merchantId: string,
    id: string,
    attempt: DeliveryAttempt,
    next: { state: DeliveryState; nextAttemptAt: string | null },
  ): Promise<OutboxEvent> {
    const e = this.must(merchantId, id);
    e.attempts.push(structuredClone(attempt));
    e.state = next.state;
    e.nextAttemptAt = next.nextAttemptAt;
    const endpoint = this.endpoints.get(merchantId);
    if (next.state === 'disabled' && endpoint) endpoint.enabled = false; // the same write
    this.writes.push({ op: 'attempt', id, state: next.state });
    return structuredClone(e);
  }

  async requeue(merchantId: string, id: string, nextAttemptAt: string): Promise<OutboxEvent> {
    const e = this.must(merchantId, id);
    e.state = 'pending';
    e.nextAttemptAt = nextAttemptAt;
    this.writes.push({ op: 'requeue', id, state: 'pending' });
    return structuredClone(e);
  }

  async setState(merchantId: string, id: string, next: { state: DeliveryState; nextAttemptAt: string | null }): Promise<OutboxEvent> {
    const e = this.must(merchantId, id);
    e.state = next.state;
    e.nextAttemptAt = next.nextAttemptAt;
    this.writes.push({ op: 'setState', id, state: next.state });
    return structuredClone(e);
  }
}
