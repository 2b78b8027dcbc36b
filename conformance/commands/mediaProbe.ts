/** B1 with a body that is not JSON (415), too large (413) or malformed JSON (400). Nothing is stored. */
import type { Cmd, Model, Real } from '../model.ts';

export class MediaProbe implements Cmd {
  constructor(readonly mode: 'text/plain' | 'too-large' | 'malformed-json') {}
  check(): boolean {
    return true;
  }
  async run(_m: Model, w: Real): Promise<void> {
    const headers: Record<string, string> = { 'X-Service-Key': w.cfg.apiKey, 'Content-Type': 'application/json' };
    let rawBody = '{"customerPhone":"212612345678","total":600,"currency":"MAD","items":[{"name":"x","quantity":1,"unitPrice":600}]}';
    let allowed = [{ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' }];
    if (this.mode === 'text/plain') headers['Content-Type'] = 'text/plain';
    if (this.mode === 'too-large') {
      rawBody = JSON.stringify({ customerPhone: '212612345678', total: 600, currency: 'MAD', items: [{ name: 'x'.repeat(120_000), quantity: 1, unitPrice: 600 }] });
      allowed = [{ status: 413, code: 'PAYLOAD_TOO_LARGE' }];
    }
    if (this.mode === 'malformed-json') {
      rawBody = rawBody.slice(0, -3);
      allowed = [{ status: 400, code: 'VALIDATION_ERROR' }];
    }
    const ex = await w.client.call('createPartnerTransaction', { headers, rawBody });
    w.expectOutcome(ex, allowed);
  }
  toString(): string {
    return `mediaProbe(createPartnerTransaction, ${this.mode})`;
  }
}
