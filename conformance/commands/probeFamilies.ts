/**
 * Every probe family on every operation it applies to, read from the contract, in the coverage
 * tour of every run (before the random search): which operations take a credential (its security
 * scheme), a JSON body, path or query parameters. A new operation or a new family cannot be left
 * out (`probe-families.test.ts` derives the product from the bundled documents on its own). The
 * probes are the families' own commands, one request each, batched by family:
 *
 * | Family | Operations | Command |
 * |---|---|---|
 * | missing / wrong credential, credential under another header name | each with a security scheme | `AuthProbe` |
 * | undeclared query parameter | each | `UnknownQuery` |
 * | not JSON (415), over `x-max-body-bytes` (413), malformed JSON, a member named twice (400) | each with a JSON body | `MediaProbe` |
 *
 * Path and query parameters at their boundaries (`parameterProbes`), the sandbox's bodies broken
 * keyword by keyword (`InvalidBody`), HEAD on every GET operation and a method each path does not
 * serve (`HeadProbe`, `MethodProbe`) read their operations from the contract in their own commands.
 * x-internal operations (the SDK's) are not driven; an event stream is not probed (a server that
 * wrongly accepted a probe would open a stream that never ends: the suite reads it through its
 * own receiver instead).
 */
import type { Cmd, Model, Real } from '../model.ts';
import type { Contract } from '../../judge/contract.ts';
import { a1Room } from './a1Budget.ts';
import { AuthProbe } from './authProbe.ts';
import { MediaProbe, type MediaMode } from './mediaProbe.ts';
import { UnknownQuery } from './unknownQuery.ts';

export const FAMILIES = [
  'missing-credential',
  'wrong-credential',
  'credential-header-name',
  'unknown-query',
  'unsupported-media-type',
  'body-too-large',
  'malformed-json',
  'duplicate-member',
] as const;
export type Family = (typeof FAMILIES)[number];

const AUTH: Partial<Record<Family, 'missing' | 'wrong' | 'wrong-header-name'>> = {
  'missing-credential': 'missing',
  'wrong-credential': 'wrong',
  'credential-header-name': 'wrong-header-name',
};
const MEDIA: Partial<Record<Family, MediaMode>> = {
  'unsupported-media-type': 'text/plain',
  'body-too-large': 'too-large',
  'malformed-json': 'malformed-json',
  'duplicate-member': 'duplicate-member',
};
/** The undeclared query parameter sent (a name no operation declares). */
export const UNKNOWN_QUERY = 'expand';

/** Whether an operation's success answer is an event stream (it never ends: not probed). */
function streams(contract: Contract, op: string): boolean {
  return (contract.response(op, contract.op(op).successStatus)?.contentTypes ?? []).includes('text/event-stream');
}

/** The operations a family applies to in a profile, from the contract. */
export function familyOperations(contract: Contract, profile: 'core' | 'sandbox', family: Family): string[] {
  return Object.entries(contract.ops)
    .filter(([op, o]) => !o.internal && (profile === 'sandbox' || !o.sandbox) && !streams(contract, op))
    .filter(([op, o]) => (family in AUTH ? o.security.length > 0 : family in MEDIA ? contract.hasRequestBody(op) : true))
    .map(([op]) => op);
}

/** One family on each of its operations, in turn. */
export class ProbeFamily implements Cmd {
  constructor(
    readonly family: Family,
    readonly ops: readonly string[],
  ) {}
  check(): boolean {
    return true;
  }
  async run(m: Model, w: Real): Promise<void> {
    const auth = AUTH[this.family];
    const media = MEDIA[this.family];
    for (const op of this.ops) {
      const probe = auth ? new AuthProbe(op, auth, 0) : media ? new MediaProbe(media, op) : new UnknownQuery(op, UNKNOWN_QUERY, 0);
      // a probe whose state is missing (a session token's operation without a live token) is not sent
      if (probe instanceof UnknownQuery && !probe.check(m)) continue;
      // an A1 probe is answered by what it probes, not by the key's rate limit (a1Budget.ts)
      if (op === 'createSession') await a1Room(w);
      await probe.run(m, w);
    }
  }
  toString(): string {
    return `probeFamily(${this.family}: ${this.ops.join(', ')})`;
  }
}

/** Every family on every operation it applies to, one command per family. */
export function probeFamilies(contract: Contract, profile: 'core' | 'sandbox'): ProbeFamily[] {
  return FAMILIES.map((f) => new ProbeFamily(f, familyOperations(contract, profile, f))).filter((p) => p.ops.length > 0);
}
