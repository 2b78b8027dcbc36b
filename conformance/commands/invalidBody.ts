/**
 * A body that breaks one keyword of a sandbox operation's request schema (a boundary probe of
 * `gen.ts`) gets the 4xx the schema's classification gives, and changes nothing (the clock did
 * not move: the next advance's offset still counts only the suite's own advances; the webhook
 * endpoint and secret still deliver to the suite's receiver, signed with the secret it holds).
 */
import type { ErrorCode } from '../../generated/index.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { refusal } from '../model.ts';
import { classifyBody } from './createSession.ts';

/** @checks error-shape */
export class InvalidBody implements Cmd {
  constructor(
    readonly op: string,
    readonly body: Record<string, unknown>,
    readonly label: string,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.state.contract.has(this.op);
  }
  async run(_m: Model, w: Real): Promise<void> {
    const cls = classifyBody(w.contract, this.op, this.body);
    if (!cls.validation.length) throw new Error(`model bug: probe ${this.label} of ${this.op} is a valid body`);
    const ex = await w.client.call(this.op, { headers: w.auth(this.op, w.cfg.apiKey), body: this.body });
    w.expectOutcome(
      ex,
      cls.validation.map((code) => refusal(code as ErrorCode)),
    );
  }
  toString(): string {
    return `invalidBody(${this.op}, ${this.label})`;
  }
}
