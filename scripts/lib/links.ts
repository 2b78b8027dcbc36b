/**
 * OpenAPI `links` (how a response feeds the next call, for stateful testers and generated docs):
 * each link names an operation that exists, only parameters that operation declares (or
 * `header.<name>` of the header its security scheme reads, e.g. the session token), and each
 * `$response.body#/…` expression, in `parameters` or `requestBody`, names a property of the
 * response's schema.
 */
import { operations, resolveRef } from './contract-facts.ts';
import { deref } from './consistency.ts';
import { isJson, textOf, type Json } from '../../lib/json.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const obj = (v: unknown): Json => (isJson(v) ? v : {});

function parameterNames(doc: Json, opPath: string, method: string): Set<string> {
  const item = obj(resolveRef(doc, obj(doc.paths)[opPath]));
  const op = obj(item[method]);
  const params = [...((item.parameters as unknown[]) ?? []), ...((op.parameters as unknown[]) ?? [])].map((p) => obj(resolveRef(doc, p)));
  return new Set(params.flatMap((p) => [String(p.name), `${String(p.in)}.${String(p.name)}`]));
}

/** Problems with the links of one variant's bundled document; empty when every link holds. */
export function checkLinks(variant: number, doc: Json): string[] {
  const problems: string[] = [];
  const ops = operations(doc);
  for (const itemRef of Object.values(obj(doc.paths))) {
    const item = obj(resolveRef(doc, itemRef));
    for (const method of METHODS) {
      const op = obj(item[method]);
      if (!op.operationId) continue;
      for (const [status, respRef] of Object.entries(obj(op.responses))) {
        const resp = obj(resolveRef(doc, respRef));
        const schema = obj(deref(doc, obj(obj(obj(resp.content)['application/json']).schema)));
        for (const [name, linkRef] of Object.entries(obj(resp.links))) {
          const link = obj(resolveRef(doc, linkRef));
          const where = `Variant ${variant} ${textOf(op.operationId)} ${status} link ${name}`;
          const target = ops[String(link.operationId)];
          if (!target) {
            problems.push(`${where}: operation ${textOf(link.operationId)} does not exist`);
            continue;
          }
          const declared = parameterNames(doc, target.path, target.method.toLowerCase());
          if (target.authHeader) declared.add(`header.${target.authHeader}`);
          for (const param of Object.keys(obj(link.parameters))) {
            if (!declared.has(param)) problems.push(`${where}: ${textOf(link.operationId)} has no parameter ${param}`);
          }
          const body = link.requestBody && typeof link.requestBody === 'object' ? Object.values(obj(link.requestBody)) : [link.requestBody];
          for (const expr of [...Object.values(obj(link.parameters)), ...body]) {
            const m = /^\$response\.body#\/([^/]+)/.exec(String(expr));
            if (m && !(m[1]! in obj(schema.properties)))
              problems.push(`${where}: ${textOf(expr)} names no property of the ${status} response`);
          }
        }
      }
    }
  }
  return problems;
}
