/** A body that is not JSON (415), over `x-max-body-bytes` (413) or malformed JSON (400). Nothing is stored. */
import { maxBodyBytes } from '../../generated/index.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { refusal } from '../model.ts';
import { a1Reserved, countRateMaybe, rateLimited } from './createSession.ts';

export type MediaOp = 'createPartnerTransaction' | 'createSession' | 'sandboxPaySession' | 'sandboxAdvanceClock';

export class MediaProbe implements Cmd {
  constructor(
    readonly mode: 'text/plain' | 'too-large' | 'malformed-json' | 'invalid',
    readonly op: MediaOp = 'createPartnerTransaction',
  ) {}
  check(m: Readonly<Model>): boolean {
    return (
      (!this.op.startsWith('sandbox') || m.state.sandbox) &&
      (this.mode !== 'invalid' || this.op.startsWith('sandbox')) &&
      (this.op !== 'createSession' || !a1Reserved(m.state))
    );
  }
  async run(_m: Model, w: Real): Promise<void> {
    const headers: Record<string, string> = { ...w.auth(this.op, w.cfg.apiKey), 'Content-Type': 'application/json' };
    let rawBody = JSON.stringify({ filler: 'x' });
    let allowed: Outcome[] = [refusal('UNSUPPORTED_MEDIA_TYPE')];
    if (this.mode === 'text/plain') headers['Content-Type'] = 'text/plain';
    if (this.mode === 'too-large') {
      // the filler alone is the largest body accepted (x-max-body-bytes): the whole body is over it
      rawBody = JSON.stringify({ filler: 'x'.repeat(maxBodyBytes) });
      allowed = [refusal('PAYLOAD_TOO_LARGE')];
    }
    if (this.mode === 'malformed-json') {
      rawBody = '{"total": 600, "currency": "MAD", ';
      allowed = [{ status: 400, code: this.op === 'createSession' ? undefined : 'VALIDATION_ERROR' }];
    }
    if (this.mode === 'invalid') {
      rawBody = JSON.stringify(this.op === 'sandboxAdvanceClock' ? { seconds: 0 } : { session_token: 'st_x', outcome: 'maybe' });
      allowed = [refusal('VALIDATION_ERROR')];
    }
    // A1 counts every request with a valid key; whether a body refused before routing counts is open.
    const a1 = this.op === 'createSession';
    const limited = a1 ? rateLimited(w.state, 'main', performance.now()) : 'no';
    if (limited !== 'no') allowed = [...allowed, refusal('RATE_LIMIT_EXCEEDED')];
    const ex = await w.client.call(this.op, { headers, rawBody });
    w.expectOutcome(ex, allowed);
    if (a1) countRateMaybe(w.state, 'main', ex, (...c) => w.check(...c));
  }
  toString(): string {
    return `mediaProbe(${this.op}, ${this.mode})`;
  }
}
