/**
 * Change notices across instances: one dedicated connection LISTENs on the channel every
 * writing transaction NOTIFYs (PostgreSQL delivers a notice only once its transaction
 * commits), reconnecting after a loss. Notices carry the sending instance's id, so an
 * instance skips its own (it told its listeners at commit already).
 */
import pg from 'pg';
import type { ChangeNotice } from '../repository.ts';
import type { CollectionName } from '../../domain/types.ts';

export const CHANNEL = 'paylater_changes';

/** The payload of one notice (short keys: a NOTIFY payload is at most 8000 bytes). */
export function encodeNotice(instance: string, n: ChangeNotice): string {
  return JSON.stringify({ i: instance, c: n.collection, m: n.merchantId, k: n.id });
}

function decodeNotice(payload: string): { instance: string; notice: ChangeNotice } | null {
  try {
    const p = JSON.parse(payload) as { i?: unknown; c?: unknown; m?: unknown; k?: unknown };
    if (typeof p.i !== 'string' || typeof p.c !== 'string' || typeof p.m !== 'string' || typeof p.k !== 'string') return null;
    return { instance: p.i, notice: { collection: p.c as CollectionName, merchantId: p.m, id: p.k } };
  } catch {
    return null;
  }
}

export class NoticeListener {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private backoffMs = 100;
  /** Resolves once the first LISTEN is in place (or failed). */
  readonly ready: Promise<void>;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly instance: string,
    private readonly deliver: (n: ChangeNotice) => void,
  ) {
    this.ready = this.connect();
  }

  private async connect(): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client(this.config);
    this.client = client;
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    client.on('notification', (msg) => {
      if (msg.channel !== CHANNEL || !msg.payload) return;
      const d = decodeNotice(msg.payload);
      if (d && d.instance !== this.instance) this.deliver(d.notice);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      this.backoffMs = 100;
    } catch {
      this.lost(client);
    }
  }

  /** Drops `client` and tries again later (doubling the wait up to 5 s). */
  private lost(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, this.backoffMs);
    this.timer.unref();
    this.backoffMs = Math.min(this.backoffMs * 2, 5000);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const c = this.client;
    this.client = null;
    await c?.end().catch(() => undefined);
  }
}
