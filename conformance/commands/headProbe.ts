/**
 * ADR-024: HEAD on the path of each GET operation the profile reaches answers as the GET (same
 * status, same content type, the response's declared headers) without a body. Path parameters
 * name the model's own records where it has them, so both a 200 and a refusal are compared.
 */
import { randomUUID } from 'node:crypto';
import type { Cmd, Model, Real } from '../model.ts';
import { rawExchange } from '../raw.ts';
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
      w.check(
        head.status === get.status,
        where,
        '$',
        `HEAD answered ${head.status}, the GET ${get.status} (ADR-024)`,
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
