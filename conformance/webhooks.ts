/**
 * Webhook receiver of the suite: verifies Standard Webhooks signatures with the merchant's
 * secret and validates each payload against its AsyncAPI message (draft-07).
 */
import { createServer, type Server } from 'node:http';
import type { ValidateFunction } from 'ajv';
import { Webhook } from 'standardwebhooks';
import { asyncApiValidators } from '../judge/webhooks.ts';
import { SetupError } from './http.ts';

export interface Delivery {
  receivedAt: number;
  webhookId: string | undefined;
  body: string;
  payload: { event?: string; data?: { id?: string; status?: string; createdAt?: string } } | undefined;
  /** Problems found on this delivery alone (signature, payload schema). */
  problems: string[];
}

/** Expected webhook deliveries missing after this long (ms) are a finding, unless told otherwise. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 3000;

/** How a delivery's signature problem starts (the judge tells another merchant's deliveries by it). */
export const SIGNATURE_PROBLEM = 'signature does not verify with the secret';

/** A receiver listening on 127.0.0.1:`port` for the merchant whose secret is `secret`, its payloads validated by the AsyncAPI document's messages. */
export async function startWebhookReceiver(port: number, secret: string): Promise<WebhookReceiver> {
  const receiver = new WebhookReceiver(port, secret, await asyncApiValidators());
  await receiver.start().catch((e: Error) => {
    throw new SetupError(`the webhook receiver cannot listen on 127.0.0.1:${port}: ${e.message}`);
  });
  return receiver;
}

export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  private server: Server | undefined;
  private readonly wh: Webhook;
  private listeners: (() => void)[] = [];
  /** Sees each delivery as it comes (the World hands it to the judge). */
  onDelivery?: (body: string, headers: Record<string, string>, receivedAt: number) => void;

  constructor(
    readonly port: number,
    readonly secret: string,
    private readonly validators: Map<string, ValidateFunction>,
  ) {
    this.wh = new Webhook(secret);
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
    try {
      this.wh.verify(body, {
        'webhook-id': headers['webhook-id'] ?? '',
        'webhook-timestamp': headers['webhook-timestamp'] ?? '',
        'webhook-signature': headers['webhook-signature'] ?? '',
      });
    } catch (e) {
      problems.push(`${SIGNATURE_PROBLEM}: ${(e as Error).message}`);
    }
    if (payload) {
      const v = this.validators.get(payload.event ?? '');
      if (!v) problems.push(`event ${JSON.stringify(payload.event)} is not an AsyncAPI message`);
      else if (!v(payload)) {
        const e = v.errors![0]!;
        problems.push(`payload $${e.instancePath.replace(/\//g, '.')}: ${e.message}`);
      }
    }
    const receivedAt = performance.now();
    this.deliveries.push({ receivedAt, webhookId: headers['webhook-id'], body, payload, problems });
    this.onDelivery?.(body, headers, receivedAt);
    for (const l of this.listeners.splice(0)) l();
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
