/**
 * ADR-024, HEAD and the methods a path does not serve: the suite's two probes (`HeadProbe`,
 * `MethodProbe`), judged by the judge's `judgeHead` and `judgeMethod` (judge/unrouted.ts).
 *
 * - HEAD on the path of each GET operation the profile reaches answers as the GET (same status,
 *   same content type, the response's declared headers) without a body. Path parameters name the
 *   model's own records where it has them, so both a 200 and a refusal are compared.
 * - A path of the contract called with a method no operation serves there answers 405
 *   METHOD_NOT_ALLOWED in the error shape, with `Allow` listing exactly the methods the bundled
 *   documents declare for that path (HEAD with GET), across both variants.
 */
import { randomUUID } from 'node:crypto';
import { loadBundledDocument } from '../../generated/index.ts';
import { judgeHead, judgeMethod } from '../../judge/unrouted.ts';
import type { Cmd, Model, Real } from '../model.ts';
import { errorOf, refusal } from '../model.ts';
import { concretePath, rawExchange } from '../raw.ts';
import type { World } from '../world.ts';

/** An operation whose success answer is an event stream: it never ends, so it has no whole body to compare. */
function streams(w: World, opId: string): boolean {
  return (w.contract.response(opId, w.success(opId).status)?.contentTypes ?? []).includes('text/event-stream');
}

/** The GET operations of the contract the profile reaches (x-internal ones are the SDK's), event streams aside. */
export function getOperations(w: World): string[] {
  return Object.entries(w.contract.ops)
    .filter(([id, o]) => o.method === 'GET' && !o.internal && (w.sandbox || !o.sandbox) && !streams(w, id))
    .map(([id]) => id);
}

/** @checks ADR-024 */
export class HeadProbe implements Cmd {
  check(): boolean {
    return true;
  }
  async run(m: Model, w: Real): Promise<void> {
    const own = m.txs.find((t) => t.who === 'main' && t.kind === 'partner' && t.vendorReference);
    const session = m.sessions.find((s) => s.who === 'main' && s.tx);
    for (const opId of getOperations(w)) {
      const o = w.contract.op(opId);
      const pathParams: Record<string, string> = {};
      for (const match of o.path.matchAll(/\{([^}]+)\}/g)) {
        const name = match[1]!;
        if (name === 'vendorReference') pathParams[name] = own?.vendorReference ?? w.freshVendorRef();
        else if (name === 'transaction_id') pathParams[name] = session?.tx?.id ?? randomUUID();
        else pathParams[name] = own?.id ?? randomUUID();
      }
      const headers =
        o.security.length === 0
          ? {}
          : w.auth(opId, w.authHeader(opId) === 'X-Session-Token' ? (session?.token ?? 'st_conformance_head') : w.cfg.apiKey);
      const get = await w.client.call(opId, { pathParams, headers });
      const url = new URL(get.url);
      const head = await rawExchange(w, `HEAD ${opId}`, 'HEAD', url.pathname + url.search, headers);
      const where = `HEAD ${o.path}`;
      const verdict = judgeHead(head.status, { get: get.status, declared: w.contract.response(opId, head.status) !== null });
      w.check(
        verdict === null,
        where,
        '$',
        `HEAD answered ${head.status}, the GET ${get.status}${verdict === 'undeclared' ? `, which does not declare ${head.status}` : ''} (ADR-024)`,
        get.status,
        head.status,
      );
      w.check(
        head.responseText === '',
        where,
        '$',
        `HEAD answered a body: ${head.responseText.slice(0, 100)}`,
        '',
        head.responseText.slice(0, 100),
      );
      const type = (h: Record<string, string>) => (h['content-type'] ?? '').split(';')[0]!.trim();
      w.check(
        type(head.responseHeaders) === type(get.responseHeaders),
        where,
        'header Content-Type',
        `HEAD has content type ${JSON.stringify(type(head.responseHeaders))}, the GET ${JSON.stringify(type(get.responseHeaders))}`,
        type(get.responseHeaders),
        type(head.responseHeaders),
      );
      for (const h of w.contract.response(opId, get.status)?.headers ?? []) {
        const name = h.name.toLowerCase();
        if (get.responseHeaders[name] === undefined) continue;
        w.check(
          head.responseHeaders[name] !== undefined,
          where,
          `header ${h.name}`,
          `the GET's declared header ${h.name} is missing from HEAD`,
          get.responseHeaders[name],
          undefined,
        );
      }
    }
  }
  toString(): string {
    return 'headProbe(every GET operation)';
  }
}

type Json = Record<string, unknown>;
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
/** Methods tried, in order, for one the path does not serve (OPTIONS is CORS, HEAD follows GET). */
const PROBES = ['DELETE', 'PATCH', 'PUT', 'POST', 'GET'];

/** Path templates of both variants' documents with the methods each declares: read once (each read of a bundled document is a copy of it). */
let declared: Map<string, Set<string>> | undefined;
function declaredPaths(): Map<string, Set<string>> {
  if (declared) return declared;
  const out = (declared = new Map<string, Set<string>>());
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
      const verdict = judgeMethod({ status: ex.status, allow: ex.responseHeaders.allow }, allow);
      w.check(
        verdict !== 'status' && code === want.code,
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
      w.check(
        verdict !== 'allow',
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
