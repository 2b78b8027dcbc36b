/**
 * Webhook receiver of the suite: verifies Standard Webhooks signatures with the merchant's
 * secret (or the secrets it was told the endpoint may sign with now, `accept`), records which
 * secret made each of a delivery's signatures, and validates each payload against its AsyncAPI
 * message (draft-07).
 */
import { createServer, type Server } from 'node:http';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Webhook } from 'standardwebhooks';
import { webhookPayloadsText } from '../generated/webhooks.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

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

/** How a delivery's signature problem starts (the judge tells another merchant's deliveries by it). */
export const SIGNATURE_PROBLEM = 'signature does not verify with the secret';

let validators: Map<string, ValidateFunction> | undefined;

/**
 * One ajv validator per AsyncAPI message name, compiled once per process from the message's
 * payload schema (`generated/webhooks.ts`: resolved from spec/asyncapi.yaml by `npm run generate`).
 */
export function asyncApiValidators(): Map<string, ValidateFunction> {
  if (!validators) {
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats(ajv);
    const schemas = JSON.parse(webhookPayloadsText) as Record<string, object>;
    validators = new Map(Object.entries(schemas).map(([name, schema]) => [name, ajv.compile(schema)]));
  }
  return validators;
}

export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  private server: Server | undefined;
  /** The secrets a delivery may be signed with now, the merchant's current one first. */
  private signing: { secret: string; wh: Webhook }[];
  private listeners: (() => void)[] = [];

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
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', () => resolve());
    });
    const addr = this.server.address();
    return typeof addr === 'object' && addr ? addr.port : this.port;
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
    this.deliveries.push({
      receivedAt: performance.now(),
      webhookId: headers['webhook-id'],
      body,
      payload,
      problems,
      signers: this.signersOf(body, signed),
    });
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
