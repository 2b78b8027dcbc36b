/**
 * `GET /api/v1/sandbox/events` (ADR-044): the caller's webhook events as Server-Sent Events,
 * read from the repository's outbox in the order they were recorded, resumable after an event
 * id. The stream reads the repository when a change notice names the merchant's outbox (other
 * instances' changes included) and, as a fallback, on a slow poll.
 */
import type { ServerResponse } from 'node:http';
import type { Core } from '../core.ts';
import type { OutboxEvent } from '../domain/outbox-event.ts';
import { operationNumber } from './common.ts';
import type { Handlers } from './context.ts';

/** How often the repository is read without a notice. */
export const STREAM_POLL_MS = 2000;
/** The start point of a stream opened before the merchant's first event: it names no event, so a stream resumed from it starts at the oldest. */
export const BEFORE_ANY_EVENT = 'msg_0';
/** Events read per repository read. */
const BATCH = 500;

function frame(e: OutboxEvent): string {
  const data = { id: e.id, event: e.event, transactionId: e.transactionId, createdAt: e.createdAt, payload: e.payload };
  return `id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * Streams `merchantId`'s events after `start` (null: from the oldest) until the response closes,
 * with a keep-alive comment every `keepAliveMs`.
 */
async function streamEvents(core: Core, merchantId: string, start: string | null, keepAliveMs: number, res: ServerResponse): Promise<void> {
  let last = start;
  let closed = false;
  let reading: Promise<void> | null = null;
  let again = false;
  const read = async () => {
    for (;;) {
      const batch = await core.repo.outboxAfter(merchantId, last, BATCH);
      if (closed) return;
      for (const e of batch) {
        res.write(frame(e));
        last = e.id;
      }
      if (batch.length < BATCH) return;
    }
  };
  /** Reads what is new, one read at a time (a wake-up during a read reads again after it). */
  const pump = () => {
    if (closed) return;
    if (reading) {
      again = true;
      return;
    }
    reading = read()
      .catch((e: Error) => core.log(`event stream read failed: ${e.message}`))
      .finally(() => {
        reading = null;
        if (again) {
          again = false;
          pump();
        }
      });
  };
  const unsubscribe = core.repo.subscribe((n) => {
    if (n.collection === 'outbox' && n.merchantId === merchantId) pump();
  });
  const poll = setInterval(pump, STREAM_POLL_MS);
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), keepAliveMs);
  res.on('close', () => {
    closed = true;
    unsubscribe();
    clearInterval(poll);
    clearInterval(keepAlive);
  });
  pump();
}

export const sandboxEventHandlers: Handlers<'sandboxStreamEvents'> = {
  /**
   * The stream: events after `Last-Event-ID` (or `after`), else those recorded from now on.
   * @rule ADR-044
   */
  async sandboxStreamEvents(core, ctx) {
    const merchantId = ctx.merchant.id;
    const keepAliveMs = operationNumber(ctx, 'x-keep-alive-seconds') * 1000;
    // Where a stream without a resume point starts: after the newest event recorded so far.
    const latest = await core.repo.latestOutboxId(merchantId);
    return {
      status: 200,
      body: null,
      stream: (req, res) => {
        const header = req.headers['last-event-id'];
        res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
        res.setHeader('Cache-Control', 'no-store');
        res.setHeader('X-Accel-Buffering', 'no');
        res.setHeader('Connection', 'keep-alive');
        res.flushHeaders();
        const resume = (typeof header === 'string' ? header : undefined) ?? ctx.query.after;
        // Without a resume point, the start point as a block with an id and no data (an
        // EventSource keeps it as its last event id without dispatching anything): a client
        // whose stream drops before its first event resumes from there, not from the newest
        // event of its next connection, and loses none recorded between the two. With no event
        // yet, an id that names none: resuming from it sends every event, all recorded since.
        res.write(`: paylater event stream\n\n${resume === undefined ? `id: ${latest ?? BEFORE_ANY_EVENT}\n\n` : ''}`);
        void streamEvents(core, merchantId, resume ?? latest, keepAliveMs, res);
      },
    };
  },
};
