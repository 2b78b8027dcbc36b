/**
 * Webhook receiver of the suite: verifies Standard Webhooks signatures with the merchant's
 * secret (or the secrets it was told the endpoint may sign with now, `accept`), records which
 * secret made each of a delivery's signatures, and validates each payload against its AsyncAPI
 * message (draft-07).
 */
import { createServer, type Server } from 'node:http';
import type { ValidateFunction } from 'ajv';
import { Webhook } from 'standardwebhooks';
import { asyncApiValidators } from '../judge/webhooks.ts';
import { listening } from '../lib/listen.ts';
import { SetupError } from './http.ts';

export interface Delivery {
  receivedAt: number;
  webhookId: string | undefined;
  body: string;
  payload: { event?: string; data?: { id?: string; status?: string; createdAt?: string } } | undefined;
  /** Problems found on this delivery alone (signature, payload schema). */
  problems: string[];
  /** The secret each `v1,` signature of its `webhook-signature` verifies with, in the header's order (null: none the receiver knows). */
  signers: (string | null)[];
}

/** Expected webhook deliveries missing after this long (ms) are a finding, unless told otherwise. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 3000;

/** How a delivery's signature problem starts (the judge tells another merchant's deliveries by it). */
export const SIGNATURE_PROBLEM = 'signature does not verify with the secret';

/** A receiver listening on 127.0.0.1:`port` for the merchant whose secret is `secret`, its payloads validated by the AsyncAPI document's messages. */
export async function startWebhookReceiver(port: number, secret: string): Promise<WebhookReceiver> {
  const receiver = new WebhookReceiver(port, secret, asyncApiValidators());
  await receiver.start().catch((e: Error) => {
    throw new SetupError(`the webhook receiver cannot listen on 127.0.0.1:${port}: ${e.message}`);
  });
  return receiver;
}

export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  private server: Server | undefined;
  /** The secrets a delivery may be signed with now, the merchant's current one first. */
  private signing: { secret: string; wh: Webhook }[];
  private listeners: (() => void)[] = [];
  /** Sees each delivery as it comes (the World hands it to the judge). */
  onDelivery?: (body: string, headers: Record<string, string>, receivedAt: number) => void;

  constructor(
    readonly port: number,
    readonly secret: string,
    private readonly validators: Map<string, ValidateFunction>,
  ) {
    this.signing = [{ secret, wh: new Webhook(secret) }];
  }

  /** The secrets deliveries are verified with from now on (a check that changes the endpoint's secret tells the receiver). */
  accept(secrets: readonly string[]): void {
    this.signing = [...new Set(secrets)].map((secret) => ({ secret, wh: new Webhook(secret) }));
  }

  /** The secrets deliveries are verified with. */
  get secrets(): string[] {
    return this.signing.map((s) => s.secret);
  }

  async start(): Promise<number> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
        this.receive(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>);
      });
    });
    return listening(this.server, this.port, '127.0.0.1');
  }

  /** @checks webhook-payload, webhook-signing, ADR-005 */
  receive(body: string, headers: Record<string, string>): void {
    const problems: string[] = [];
    let payload: Delivery['payload'];
    try {
      payload = JSON.parse(body) as Delivery['payload'];
    } catch {
      problems.push('body is not JSON');
    }
    const signed = {
      'webhook-id': headers['webhook-id'] ?? '',
      'webhook-timestamp': headers['webhook-timestamp'] ?? '',
      'webhook-signature': headers['webhook-signature'] ?? '',
    };
    // verified when one of the secrets verifies it (Standard Webhooks: any signature of the header)
    const failures: string[] = [];
    for (const { wh } of this.signing)
      try {
        wh.verify(body, signed);
        break;
      } catch (e) {
        failures.push((e as Error).message);
      }
    if (failures.length === this.signing.length) problems.push(`${SIGNATURE_PROBLEM}: ${failures[0]}`);
    this.validate(payload, problems);
    const receivedAt = performance.now();
    this.deliveries.push({ receivedAt, webhookId: headers['webhook-id'], body, payload, problems, signers: this.signersOf(body, signed) });
    this.onDelivery?.(body, headers, receivedAt);
    for (const l of this.listeners.splice(0)) l();
  }

  /** Which known secret made each `v1,` signature of the header, in its order. */
  private signersOf(body: string, h: Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string>): (string | null)[] {
    const ts = Number(h['webhook-timestamp']);
    if (!Number.isFinite(ts) || !h['webhook-id']) return [];
    const made = this.signing.map(({ secret, wh }) => ({ secret, sig: wh.sign(h['webhook-id'], new Date(ts * 1000), body) }));
    return h['webhook-signature']
      .split(' ')
      .filter((x) => x.length > 0)
      .map((sig) => made.find((m) => m.sig === sig)?.secret ?? null);
  }

  /** The payload against its AsyncAPI message. */
  private validate(payload: Delivery['payload'], problems: string[]): void {
    if (payload) {
      const v = this.validators.get(payload.event ?? '');
      if (!v) problems.push(`event ${JSON.stringify(payload.event)} is not an AsyncAPI message`);
      else if (!v(payload)) {
        const e = v.errors![0]!;
        problems.push(`payload $${e.instancePath.replace(/\//g, '.')}: ${e.message}`);
      }
    }
  }

  /** Resolves when a new delivery arrives or after `ms`. */
  waitForDelivery(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.listeners.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** Stops listening, then ends every connection (a delivery arriving meanwhile cannot keep it open). */
  async close(): Promise<void> {
    const server = this.server;
    if (!server?.listening) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }
}
