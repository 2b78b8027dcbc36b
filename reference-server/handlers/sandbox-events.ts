/**
 * `GET /api/v1/sandbox/events` (ADR-044): the caller's webhook events as Server-Sent Events,
 * read from the store's outbox in the order they were recorded, resumable after an event id.
 * The stream polls the store rather than listening to this process, so instances sharing a
 * store serve the same events.
 */
import type { Core } from '../core.ts';
import type { OutboxEvent } from '../webhooks/contracts.ts';
import type { Handler } from './context.ts';

/** How often the store is read for new events, and how often a keep-alive comment is sent. */
export const STREAM_POLL_MS = 250;
export const KEEP_ALIVE_MS = 15_000;

/** The merchant's events recorded after `afterId` (all of them when it is unknown to the store: it was deleted). */
export function eventsAfter(core: Core, merchantId: string, afterId: string | null): OutboxEvent[] {
  const all = core.store.outboxOf(merchantId);
  if (afterId === null) return [];
  const i = all.findIndex((e) => e.id === afterId);
  return i < 0 ? all : all.slice(i + 1);
}

function frame(e: OutboxEvent): string {
  const data = { id: e.id, event: e.event, transactionId: e.transactionId, createdAt: e.createdAt, payload: e.payload };
  return `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export const sandboxEventHandlers: Record<string, Handler> = {
  /**
   * The stream: events after `Last-Event-ID` (or `after`), else those recorded from now on.
   * @rule ADR-044
   */
  sandboxStreamEvents: (core, ctx) =>
    Promise.resolve({
      status: 200,
      body: null,
      stream: (req, res) => {
        const merchantId = ctx.merchant.id;
        const header = req.get('last-event-id');
        const query = typeof req.query.after === 'string' ? req.query.after : undefined;
        let last: string | null = header ?? query ?? null;
        // Without a resume point, start after the newest event recorded so far.
        if (last === null) last = core.store.outboxOf(merchantId).at(-1)?.id ?? '';
        res.set({
          'Content-Type': 'text/event-stream; charset=utf-8',
          'Cache-Control': 'no-store',
          'X-Accel-Buffering': 'no',
          Connection: 'keep-alive',
        });
        res.flushHeaders();
        res.write(': paylater event stream\n\n');
        const seen = new Set<string>();
        const pump = () => {
          const batch = last === '' ? core.store.outboxOf(merchantId) : eventsAfter(core, merchantId, last);
          for (const e of batch) {
            if (seen.has(e.id)) continue;
            seen.add(e.id);
            res.write(frame(e));
            last = e.id;
          }
        };
        pump();
        const poll = setInterval(pump, STREAM_POLL_MS);
        const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
        const stop = () => {
          clearInterval(poll);
          clearInterval(keepAlive);
        };
        req.on('close', stop);
        res.on('close', stop);
      },
    }),
};
