/**
 * The coverage tour holds every probe family times every operation it applies to, in both variants
 * and both profiles: the product is derived here from the bundled documents on their own (each
 * operation's `security`, `requestBody`, parameters, `x-internal`, `x-sandbox`, and whether it
 * answers an event stream), not from the suite's helpers, and compared with the probes the tour's
 * commands make (its first look, its probes and the rest). A new operation or a new family the
 * tour leaves out is a gap.
 */
import { describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../generated/index.ts';
import type { Cmd } from './model.ts';
import { Contract } from '../judge/contract.ts';
import { firstLook, probeTour, tourCommands } from './tour.ts';
import { FAMILIES, ProbeFamily } from './commands/probeFamilies.ts';
import { ParameterProbe } from './commands/parameterProbe.ts';
import { HeadProbe, MethodProbe } from './commands/routeProbes.ts';
import { InvalidBody } from './commands/invalidBody.ts';
import { AuthProbe } from './commands/authProbe.ts';
import { MediaProbe } from './commands/mediaProbe.ts';
import { UnknownQuery } from './commands/unknownQuery.ts';

type Json = Record<string, unknown>;
const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

/** Each operation of a variant's bundled document as the document states it. */
function operations(
  variant: 1 | 2,
): { id: string; secured: boolean; body: boolean; internal: boolean; sandbox: boolean; params: string[] }[] {
  const doc = loadBundledDocument(variant) as Json & { paths: Record<string, Json>; security?: unknown[] };
  const deref = (n: unknown): Json => {
    const ref = (n as Json).$ref;
    if (typeof ref !== 'string') return n as Json;
    return ref
      .slice(2)
      .split('/')
      .reduce<unknown>((cur, k) => (cur as Json)[k], doc) as Json;
  };
  const out = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const ok = Object.entries(op.responses as Json).find(([s]) => /^2\d\d$/.test(s));
      const content = Object.keys(deref(ok?.[1]).content ?? {});
      if (content.includes('text/event-stream')) continue;
      const params = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])]
        .map(deref)
        .filter((p) => p.in === 'path' || p.in === 'query')
        .map((p) => `${String(p.in)}.${String(p.name)}`);
      out.push({
        id: String(op.operationId),
        secured: ((op.security ?? doc.security ?? []) as unknown[]).some((s) => Object.keys(s as Json).length > 0),
        body: (deref(op.requestBody ?? {}).content as Json | undefined)?.['application/json'] !== undefined,
        internal: op['x-internal'] === true,
        sandbox: op['x-sandbox'] === true || path.startsWith('/api/v1/sandbox/'),
        params,
      });
    }
  }
  return out;
}

/** The (family, operation) pairs the contract asks of a profile. */
function expectedPairs(variant: 1 | 2, profile: 'core' | 'sandbox'): string[] {
  const ops = operations(variant).filter((o) => !o.internal && (profile === 'sandbox' || !o.sandbox));
  const applies: Record<(typeof FAMILIES)[number], (o: (typeof ops)[number]) => boolean> = {
    'missing-credential': (o) => o.secured,
    'wrong-credential': (o) => o.secured,
    'credential-header-name': (o) => o.secured,
    'unknown-query': () => true,
    'unsupported-media-type': (o) => o.body,
    'body-too-large': (o) => o.body,
    'malformed-json': (o) => o.body,
    'duplicate-member': (o) => o.body,
  };
  return FAMILIES.flatMap((f) => ops.filter(applies[f]).map((o) => `${f} ${o.id}`)).sort();
}

const unwrap = (c: Cmd): Cmd => (c as { inner?: Cmd }).inner ?? c;

const AUTH_FAMILY = { missing: 'missing-credential', wrong: 'wrong-credential', 'wrong-header-name': 'credential-header-name' } as const;
const MEDIA_FAMILY: Record<string, string> = {
  'text/plain': 'unsupported-media-type',
  'too-large': 'body-too-large',
  'malformed-json': 'malformed-json',
  'duplicate-member': 'duplicate-member',
};

/** The (family, operation) pairs the tour's commands make: the family commands', and any single probe's. */
function tourPairs(commands: Cmd[]): string[] {
  const pairs = commands.map(unwrap).flatMap((c): string[] => {
    if (c instanceof ProbeFamily) return c.ops.map((op) => `${c.family} ${op}`);
    if (c instanceof AuthProbe) return [`${AUTH_FAMILY[c.mode]} ${c.op}`];
    if (c instanceof MediaProbe && MEDIA_FAMILY[c.mode]) return [`${MEDIA_FAMILY[c.mode]} ${c.op}`];
    if (c instanceof UnknownQuery) return [`unknown-query ${c.op}`];
    return [];
  });
  return [...new Set(pairs)].sort();
}

/** The whole tour of a profile: its first look, its probes, the rest. */
function tour(variant: 1 | 2, profile: 'core' | 'sandbox'): Cmd[] {
  const c = Contract.for(variant);
  return [...firstLook(c, profile).commands, ...probeTour(c, profile).commands, ...tourCommands(c, profile)];
}

/** What `expected` holds that `actual` lacks. */
const gaps = (expected: string[], actual: string[]): string[] => expected.filter((p) => !actual.includes(p));

describe('every probe family on every operation, every run', () => {
  for (const variant of [1, 2] as const)
    for (const profile of ['core', 'sandbox'] as const)
      it(`variant ${variant}, ${profile} profile: the tour holds the product the contract asks`, () => {
        const commands = tour(variant, profile);
        const expected = expectedPairs(variant, profile);
        const actual = tourPairs(commands);
        expect(expected.length).toBeGreaterThan(FAMILIES.length);
        expect(gaps(expected, actual)).toEqual([]);
        // the families whose operations their own commands read from the contract
        const inner = commands.map(unwrap);
        expect(inner.some((c) => c instanceof HeadProbe)).toBe(true);
        expect(inner.some((c) => c instanceof MethodProbe)).toBe(true);
        const probed = new Set(
          inner.filter((c): c is ParameterProbe => c instanceof ParameterProbe && !c.inside).map((c) => `${c.op} ${c.location}.${c.name}`),
        );
        const params = operations(variant)
          .filter((o) => !o.internal && (profile === 'sandbox' || !o.sandbox))
          .flatMap((o) => o.params.map((p) => `${o.id} ${p}`));
        expect(params.filter((p) => !probed.has(p))).toEqual([]);
        if (profile === 'sandbox') {
          const broken = new Set(inner.filter((c): c is InvalidBody => c instanceof InvalidBody).map((c) => c.op));
          const sandboxBodies = operations(variant).filter((o) => o.sandbox && o.body && !o.internal);
          expect(sandboxBodies.filter((o) => !broken.has(o.id)).map((o) => o.id)).toEqual([]);
        }
      });

  it('a pair dropped from the tour is a gap (the comparison sees it)', () => {
    const actual = tourPairs(tour(1, 'sandbox'));
    const dropped = actual.find((p) => p.startsWith('missing-credential getPartnerTransaction'))!;
    expect(dropped).toBeDefined();
    expect(
      gaps(
        expectedPairs(1, 'sandbox'),
        actual.filter((p) => p !== dropped),
      ),
    ).toEqual([dropped]);
  });
});
