/** A1: create a checkout session; the model counts requests per key and window (x-rate-limit). */
import { tokenLifetimeSeconds, type ErrorCode } from '../../generated/index.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { refusal } from '../model.ts';
import { centimesOf, centimesToNumber } from '../../lib/money.ts';
import type { Who, World } from '../world.ts';
import { a1Reserved } from '../model-rate.ts';

type Json = Record<string, unknown>;

/** Sends one A1 request and checks it against the rate-limit model and the body's classification. */
export async function sendSession(m: Model, w: World, body: Json, who: Who = 'main'): Promise<'limited' | 'created' | 'refused'> {
  const limited = w.rateLimited(who);
  const cls = w.contract.classifyBody('createSession', body);
  const normal: Outcome[] = cls.validation.map((code) => refusal(code as ErrorCode));
  if (!normal.length && cls.mismatch) normal.push(refusal('AMOUNT_MISMATCH'));
  if (!normal.length) normal.push(w.success('createSession'));
  const rl = w.rateLimit();
  const allowed =
    limited === 'yes' ? [refusal('RATE_LIMIT_EXCEEDED')] : limited === 'no' ? normal : [...normal, refusal('RATE_LIMIT_EXCEEDED')];
  const ex = await w.client.call('createSession', { headers: w.auth('createSession', w.key(who)), body });
  w.expectOutcome(ex, allowed);
  w.countRate(who, ex);
  if (ex.status === 429) {
    const err = (ex.json as { error: Json }).error;
    // ADR-006: one wait, the rest of the window, in the body and both headers.
    const wait = err.retry_after;
    w.check(
      typeof wait === 'number' && Number.isInteger(wait) && wait >= 1 && wait <= rl.windowSeconds,
      'createSession',
      '$.error.retry_after',
      `retry_after ${String(wait)} is not a wait within the ${rl.windowSeconds} s window`,
      `1..${rl.windowSeconds}`,
      wait,
    );
    for (const [header, name] of [
      ['retry-after', 'Retry-After'],
      ['ratelimit-reset', 'RateLimit-Reset'],
    ] as const) {
      w.check(
        ex.responseHeaders[header] === String(wait),
        'createSession',
        `header ${name}`,
        `${name} ${ex.responseHeaders[header]} differs from retry_after ${String(wait)}`,
        wait,
        ex.responseHeaders[header],
      );
    }
    return 'limited';
  }
  // the other merchant's sessions are not driven further (payments and verifications are the main merchant's)
  if (!w.succeeded(ex) || who !== 'main') return w.succeeded(ex) ? 'created' : 'refused';
  const rec = ex.json as Json;
  const token = (w.cfg.variant === 1 ? rec.token : rec.session_token) as string;
  if (w.cfg.variant === 1) {
    const exp = Date.parse(rec.expiresAt as string);
    w.check(Number.isFinite(exp), 'createSession', '$.expiresAt', 'expiresAt is not a date');
    w.checkInstant(ex, '$.expiresAt', rec.expiresAt, 'the end of the token lifetime', tokenLifetimeSeconds * 1000);
  }
  m.sessions.push({
    token,
    who: 'main',
    total: centimesToNumber(centimesOf(body.total)!),
    sentAt: ex.sentAt,
    receivedAt: ex.receivedAt,
    advAtCreation: w.state.advanced.main,
  });
  return 'created';
}

/** @checks a1-required-fields, amount-range, a1-currency, a1-items, amount-consistency, a1-session-response, ADR-012, ADR-057 */
export class CreateSession implements Cmd {
  constructor(
    readonly body: Json,
    readonly label: string,
  ) {}
  check(m: Readonly<Model>): boolean {
    return !a1Reserved(m.state);
  }
  async run(m: Model, w: Real): Promise<void> {
    await sendSession(m, w, this.body);
  }
  toString(): string {
    return `createSession(${this.label})`;
  }
}
