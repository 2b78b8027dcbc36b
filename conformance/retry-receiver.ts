/**
 * The webhook receiver of the retry checks (`retries.ts`): it answers the events of each planned
 * transaction by that transaction's plan (one answer per request, e.g. 503 with `Retry-After`,
 * then 204), 500 any other event, and records every request (when it came, its `webhook-id`, its
 * body, what it was answered and when). Listens on 127.0.0.1.
 */
import { createServer } from 'node:http';

/** What the receiver answers one request. */
export interface Answer {
  status: number;
  headers?: Record<string, string>;
}

/** The answer to the `n`th request (1 for the first) about one transaction, made when it comes. */
export type Plan = (n: number) => Answer;

export interface Received {
  /** performance.now() when the request's body had arrived. */
  at: number;
  /** Date.now() when it was answered (a Retry-After date is reckoned from it). */
  answeredAt: number;
  txId: string | undefined;
  id: string | undefined;
  body: string;
  answer: Answer;
}

export class RetryReceiver {
  readonly received: Received[] = [];
  private readonly plans = new Map<string, Plan>();
  private readonly server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      const body = Buffer.concat(chunks).toString('utf8');
      const txId = transactionOf(body);
      const plan = txId === undefined ? undefined : this.plans.get(txId);
      const answer = plan ? plan(this.of(txId!).length + 1) : { status: 500 };
      const id = req.headers['webhook-id'];
      this.received.push({ at, answeredAt: Date.now(), txId, id: typeof id === 'string' ? id : undefined, body, answer });
      res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end(`answered ${answer.status} on purpose`);
    });
  });

  /** The URL to set as the merchant's webhook endpoint (after `start`). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/retries`;
  }

  start(): Promise<void> {
    return new Promise((r) => this.server.listen(0, '127.0.0.1', () => r()));
  }

  /** Answers the events of transaction `txId` by `plan`. */
  plan(txId: string, plan: Plan): void {
    this.plans.set(txId, plan);
  }

  /** The requests about transaction `txId`, in order. */
  of(txId: string): Received[] {
    return this.received.filter((r) => r.txId === txId);
  }

  /** Stops listening, then ends every connection (a request arriving meanwhile cannot keep it open). */
  async close(): Promise<void> {
    if (!this.server.listening) return;
    const closed = new Promise<void>((r) => this.server.close(() => r()));
    this.server.closeAllConnections();
    await closed;
  }
}

/** The transaction an event body is about (`data.id`), if it reads as one. */
function transactionOf(body: string): string | undefined {
  try {
    const id = (JSON.parse(body) as { data?: { id?: unknown } }).data?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
