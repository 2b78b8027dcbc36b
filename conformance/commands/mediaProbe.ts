/**
 * A body that is not JSON (415), over `x-max-body-bytes` (413), malformed JSON (400), or a valid body
 * naming its first member twice (400 VALIDATION_ERROR naming it, ADR-023), on an operation with a
 * JSON body. Nothing is stored.
 */
import { maxBodyBytes } from '../../generated/index.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { errorOf, refusal } from '../model.ts';
import { validBody } from '../gen.ts';
import { witnessOf } from '../schema-probes.ts';
import { a1Reserved, countRateMaybe, rateLimited } from './createSession.ts';

export type MediaOp = string;
export type MediaMode = 'text/plain' | 'too-large' | 'malformed-json' | 'invalid' | 'duplicate-member';

/**
 * A valid body of `op` (its generator's fixed one) with its first member named twice, the second
 * time with the same value: which member, and the raw text. A body without members gets the first
 * declared property's witness.
 */
export function duplicateMember(w: Real, op: string): { member: string; raw: string } {
  const body = validBody(w.contract, op);
  if (!Object.keys(body).length) {
    const [name, schema] = Object.entries((w.contract.requestSchema(op).properties ?? {}) as Record<string, unknown>)[0]!;
    body[name] = witnessOf(w.contract.doc, schema);
  }
  const [member, value] = Object.entries(body)[0]!;
  return { member, raw: `${JSON.stringify(body).slice(0, -1)},${JSON.stringify(member)}:${JSON.stringify(value)}}` };
}

export class MediaProbe implements Cmd {
  constructor(
    readonly mode: MediaMode,
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
    const dup = this.mode === 'duplicate-member' ? duplicateMember(w, this.op) : undefined;
    if (dup) {
      rawBody = dup.raw;
      allowed = [refusal('VALIDATION_ERROR')];
    }
    // A1 counts every request with a valid key; whether a body refused before routing counts is open.
    const a1 = this.op === 'createSession';
    const limited = a1 ? rateLimited(w.state, 'main', performance.now()) : 'no';
    if (limited !== 'no') allowed = [...allowed, refusal('RATE_LIMIT_EXCEEDED')];
    const ex = await w.client.call(this.op, { headers, rawBody });
    w.expectOutcome(ex, allowed);
    if (a1) countRateMaybe(w.state, 'main', ex, (...c) => w.check(...c));
    if (dup && ex.status !== 429)
      w.check(
        JSON.stringify(errorOf(ex) ?? {}).includes(dup.member),
        this.op,
        '$.error',
        `the 400 for a body naming ${dup.member} twice does not name the member (ADR-023)`,
        dup.member,
        errorOf(ex),
      );
  }
  toString(): string {
    return `mediaProbe(${this.op}, ${this.mode})`;
  }
}
