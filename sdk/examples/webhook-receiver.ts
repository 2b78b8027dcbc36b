/**
 * A small PayLater webhook receiver that follows the seed's receiver rules:
 *
 *   1. verify the signature (sdk/webhooks/verify.ts), then answer 200 at once and process
 *      asynchronously;
 *   2. be idempotent by `webhook-id`: the same event can arrive more than once;
 *   3. match the order by data.id or data.vendorReference.
 *
 * Every accepted event is first written to an inbox file (JSON, replaced atomically) before the
 * 200, then processed, then marked processed. After a restart the inbox still knows every id
 * (duplicates stay duplicates) and events accepted but not yet processed are processed then.
 *
 *   tsx sdk/examples/webhook-receiver.ts --port 4020 --secret whsec_... [--store webhook-inbox.json]
 *       [--host 127.0.0.1] [--process-delay-ms 0]
 *
 * (`--secret` may also come from PAYLATER_WEBHOOK_SECRET.) Point the merchant's webhook URL at
 * http://127.0.0.1:4020/ (the sandbox allows loopback).
 */
import { existsSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve as resolvePath } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { prepareWebhookVerification, verifyWebhook, WebhookVerificationError, type TransactionEvent } from '../webhooks/verify.ts';

export interface InboxEntry {
  event: TransactionEvent['event'];
  transactionId: string;
  vendorReference: string | null;
  receivedAt: string;
  processedAt: string | null;
  payload: TransactionEvent;
}

interface InboxFile {
  version: 1;
  events: Record<string, InboxEntry>;
}

/** The persisted set of seen webhook-ids (and their events), written atomically. */
export class Inbox {
  private data: InboxFile;
  private writing: Promise<void> = Promise.resolve();
  private dirty = false;

  constructor(readonly path: string) {
    this.data = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as InboxFile) : { version: 1, events: {} };
    if (this.data.version !== 1 || typeof this.data.events !== 'object') throw new Error(`${path} is not a webhook inbox`);
  }

  has(id: string): boolean {
    return Object.hasOwn(this.data.events, id);
  }
  get(id: string): InboxEntry | undefined {
    return this.data.events[id];
  }
  unprocessed(): Array<[string, InboxEntry]> {
    return Object.entries(this.data.events).filter(([, e]) => e.processedAt === null);
  }
  size(): number {
    return Object.keys(this.data.events).length;
  }

  add(id: string, payload: TransactionEvent): void {
    this.data.events[id] = {
      event: payload.event,
      transactionId: payload.data.id,
      vendorReference: payload.data.vendorReference ?? null,
      receivedAt: new Date().toISOString(),
      processedAt: null,
      payload,
    };
  }
  markProcessed(id: string): void {
    const e = this.data.events[id];
    if (e) e.processedAt = new Date().toISOString();
  }

  /** Resolves once everything changed so far is on disk (writes are coalesced). */
  flush(): Promise<void> {
    this.dirty = true;
    this.writing = this.writing.then(async () => {
      if (!this.dirty) return;
      this.dirty = false;
      const tmp = `${this.path}.${process.pid}.tmp`;
      await writeFile(tmp, JSON.stringify(this.data, null, 2));
      await rename(tmp, this.path);
    });
    return this.writing;
  }
}

export interface ReceiverOptions {
  secret: string;
  storePath: string;
  /** What to do with each event, once per webhook-id (default: log the order to fulfil/cancel). */
  process?: (event: TransactionEvent, webhookId: string) => Promise<void> | void;
  /** Simulated slow processing, to show that the 200 does not wait for it. */
  processDelayMs?: number;
  log?: (line: string) => void;
  maxBodyBytes?: number;
}

export interface WebhookReceiver {
  server: Server;
  inbox: Inbox;
  /** Resolves when every accepted event has been processed. */
  drain(): Promise<void>;
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function defaultProcess(log: (l: string) => void) {
  return (event: TransactionEvent, webhookId: string) => {
    const ref = event.data.vendorReference ?? event.data.id;
    const action =
      event.event === 'transaction.approved'
        ? 'fulfil the order'
        : event.event === 'transaction.cancelled'
          ? 'cancel the order'
          : 'release the order (payment window expired)';
    log(`processed ${webhookId} ${event.event} transaction=${event.data.id} order=${ref}: ${action}`);
  };
}

export function createWebhookReceiver(options: ReceiverOptions): WebhookReceiver {
  const log = options.log ?? ((l: string) => console.log(l));
  const handle: NonNullable<ReceiverOptions['process']> = options.process ?? defaultProcess(log);
  const inbox = new Inbox(options.storePath);
  prepareWebhookVerification();
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;
  const running = new Set<Promise<void>>();
  /** Ids whose acceptance is being written: a duplicate waits for it before its 200. */
  const accepting = new Map<string, Promise<void>>();

  function processLater(id: string) {
    const p = (async () => {
      await new Promise((r) => setTimeout(r, options.processDelayMs ?? 0));
      const entry = inbox.get(id);
      if (!entry || entry.processedAt !== null) return;
      await handle(entry.payload, id);
      inbox.markProcessed(id);
      await inbox.flush();
    })()
      .catch((err: unknown) => log(`processing ${id} failed (will be retried at the next start): ${String(err)}`))
      .finally(() => running.delete(p));
    running.add(p);
  }

  const respond = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const reply = (status: number, body: Record<string, unknown>) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    try {
      if (req.method !== 'POST') return reply(405, { error: 'POST only' });
      const raw = await readBody(req, maxBody);
      if (raw === null) return reply(413, { error: 'body too large' });
      let event: TransactionEvent;
      try {
        event = verifyWebhook(raw, req.headers, options.secret);
      } catch (err) {
        if (err instanceof WebhookVerificationError) {
          log(`refused: ${err.code}: ${err.message}`);
          return reply(err.code === 'bad_signature' || err.code === 'missing_header' ? 401 : 400, { error: err.code });
        }
        throw err;
      }
      const id = req.headers['webhook-id'] as string;
      const pending = accepting.get(id);
      if (pending) await pending;
      if (inbox.has(id)) {
        log(`duplicate ${id} ${event.event}: already accepted, not processed again`);
        return reply(200, { status: 'duplicate' });
      }
      inbox.add(id, event);
      const written = inbox.flush();
      accepting.set(id, written);
      try {
        await written;
      } finally {
        accepting.delete(id);
      }
      reply(200, { status: 'accepted' });
      processLater(id);
    } catch (err) {
      log(`error: ${String(err)}`);
      if (!res.headersSent) reply(500, { error: 'internal' });
    }
  };
  const server = createServer((req, res) => void respond(req, res));

  // events accepted before a crash or restart but not processed yet
  for (const [id] of inbox.unprocessed()) processLater(id);

  return {
    server,
    inbox,
    async drain() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '4020' },
      host: { type: 'string', default: '127.0.0.1' },
      secret: { type: 'string' },
      store: { type: 'string', default: 'webhook-inbox.json' },
      'process-delay-ms': { type: 'string', default: '0' },
    },
  });
  const secret = values.secret ?? process.env.PAYLATER_WEBHOOK_SECRET;
  if (!secret) {
    console.error('usage: tsx sdk/examples/webhook-receiver.ts --port 4020 --secret whsec_... [--store webhook-inbox.json]');
    process.exit(2);
  }
  const receiver = createWebhookReceiver({
    secret,
    storePath: resolvePath(values.store),
    processDelayMs: Number(values['process-delay-ms']),
  });
  await new Promise<void>((r) => receiver.server.listen(Number(values.port), values.host, () => r()));
  const { port } = receiver.server.address() as AddressInfo;
  console.log(`listening on http://${values.host}:${port}/ (inbox ${resolvePath(values.store)}, ${receiver.inbox.size()} ids known)`);
  const stop = async () => {
    receiver.server.close();
    receiver.server.closeAllConnections();
    await receiver.drain();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolvePath(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
