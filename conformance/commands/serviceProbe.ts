/**
 * ADR-040: the operations the bundled document declares without a key (`security: []`, the
 * liveness and readiness probes) answer GET without any credential with their success status
 * and one of the bodies their success response declares as an example, and refuse an
 * undeclared query parameter like any other operation (400 VALIDATION_ERROR).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Cmd, Model, Real } from '../model.ts';
import { refusal } from '../model.ts';
import type { World } from '../world.ts';

type Json = Record<string, unknown>;

/** The operations declared without a key. */
export function openOperations(w: World): string[] {
  return Object.entries(w.contract.ops)
    .filter(([, o]) => o.security.length === 0 && !o.internal)
    .map(([id]) => id);
}

/** `node`, its `$ref` (a local JSON pointer) followed. */
function resolve(doc: Json, node: unknown): Json {
  let n = node as Json;
  for (let i = 0; i < 10 && typeof n?.$ref === 'string'; i++) {
    n = n.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((cur, p) => (cur as Json)[p.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Json;
  }
  return n;
}

/** The example values of an operation's JSON success response. */
function successExamples(w: World, opId: string): unknown[] {
  const o = w.contract.op(opId);
  const doc = w.contract.doc;
  const op = resolve(doc, resolve(doc, (doc.paths as Json)[o.path])[o.method.toLowerCase()]);
  const res = resolve(doc, (op.responses as Json)[String(o.successStatus)]);
  const media = resolve(doc, (res.content as Json | undefined)?.['application/json']);
  const out = Object.values((media.examples ?? {}) as Json).map((e) => resolve(doc, e).value);
  return 'example' in media ? [...out, media.example] : out;
}

/** @checks ADR-040 */
export class ServiceProbe implements Cmd {
  check(): boolean {
    return true;
  }
  async run(_m: Model, w: Real): Promise<void> {
    const ops = openOperations(w);
    w.check(
      ops.length > 0,
      'service probes',
      '$',
      'the contract declares no operation without a key (ADR-040)',
      'getHealth, getReadiness',
      ops,
    );
    for (const opId of ops) {
      const ex = await w.client.call(opId);
      w.expectOutcome(ex, [w.success(opId)]);
      const examples = successExamples(w, opId);
      w.check(examples.length > 0, opId, '$', `the ${w.contract.op(opId).successStatus} of ${opId} declares no example to compare with`);
      w.check(
        examples.some((e) => isDeepStrictEqual(e, ex.json)),
        opId,
        '$',
        `answered ${ex.responseText.slice(0, 100)}, the declared examples are ${JSON.stringify(examples)}`,
        examples,
        ex.json,
      );
      if (w.contract.queryParameters(opId).includes('probe')) continue;
      const q = await w.client.call(opId, { query: { probe: '1' } });
      w.expectOutcome(q, [refusal('VALIDATION_ERROR')]);
    }
  }
  toString(): string {
    return 'serviceProbe(every operation without a key)';
  }
}
