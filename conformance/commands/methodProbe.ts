/**
 * ADR-024: a path of the contract called with a method no operation serves there answers 405
 * METHOD_NOT_ALLOWED in the error shape, with `Allow` listing exactly the methods the bundled
 * documents declare for that path (HEAD with GET), across both variants.
 */
import { randomUUID } from 'node:crypto';
import { loadBundledDocument } from '../../generated/index.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { errorOf, refusal } from '../model.ts';
import { concretePath, rawExchange } from '../raw.ts';
import type { World } from '../world.ts';

type Json = Record<string, unknown>;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Methods tried, in order, for one the path does not serve (OPTIONS is CORS, HEAD follows GET). */
const PROBES = ['DELETE', 'PATCH', 'PUT', 'POST', 'GET'];

/** Path templates of both variants' documents with the methods each declares. */
function declaredPaths(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const v of [1, 2] as const) {
    for (const [p, item] of Object.entries((loadBundledDocument(v).paths ?? {}) as Record<string, Json>)) {
      const set = out.get(p) ?? new Set<string>();
      for (const k of Object.keys(item)) if (HTTP_METHODS.includes(k)) set.add(k.toUpperCase());
      out.set(p, set);
    }
  }
  return out;
}

/** The methods the documents declare for a concrete path: every template it matches, HEAD with GET. */
function allowFor(paths: Map<string, Set<string>>, path: string): string[] {
  const out = new Set<string>();
  for (const [template, methods] of paths) {
    if (!new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(path)) continue;
    for (const m of methods) out.add(m);
  }
  if (out.has('GET')) out.add('HEAD');
  return [...out].sort();
}

/** The paths of this variant's operations the profile reaches (x-internal ones are the SDK's), one operation each. */
function probedPaths(w: World): Map<string, string> {
  const out = new Map<string, string>();
  for (const [id, o] of Object.entries(w.contract.ops))
    if (!o.internal && (w.sandbox || !o.sandbox) && !out.has(o.path)) out.set(o.path, id);
  return out;
}

/** @checks ADR-024 */
export class MethodProbe implements Cmd {
  check(): boolean {
    return true;
  }
  async run(_m: Model, w: Real): Promise<void> {
    const paths = declaredPaths();
    const want = refusal('METHOD_NOT_ALLOWED');
    for (const [template, opId] of probedPaths(w)) {
      const path = concretePath(template, () => randomUUID());
      const allow = allowFor(paths, path);
      const method = PROBES.find((p) => !allow.includes(p))!;
      const o = w.contract.op(opId);
      const headers =
        o.security.length === 0 ? {} : w.auth(opId, w.authHeader(opId) === 'X-Session-Token' ? 'st_conformance_method' : w.cfg.apiKey);
      const ex = await rawExchange(w, `${method} ${template}`, method, path, headers);
      const where = `${method} ${template}`;
      const code = typeof errorOf(ex)?.code === 'string' ? (errorOf(ex)!.code as string) : undefined;
      w.check(
        ex.status === want.status && code === want.code,
        where,
        '$',
        `${method} ${path} answered ${ex.status} ${code ?? ''}; the path serves ${allow.join(', ')} (ADR-024)`,
        want,
        { status: ex.status, code },
      );
      w.check(
        typeof errorOf(ex)?.message === 'string',
        where,
        '$.error.message',
        'the 405 is not in the error shape',
        'a message',
        errorOf(ex),
      );
      const got = (ex.responseHeaders.allow ?? '')
        .split(',')
        .map((s) => s.trim().toUpperCase())
        .filter(Boolean)
        .sort();
      w.check(
        got.join(', ') === allow.join(', '),
        where,
        'header Allow',
        `Allow ${JSON.stringify(ex.responseHeaders.allow ?? null)}, the documents declare ${allow.join(', ')} for ${template}`,
        allow.join(', '),
        ex.responseHeaders.allow,
      );
    }
  }
  toString(): string {
    return 'methodProbe(every path, a method it does not serve)';
  }
}
