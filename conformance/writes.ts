/**
 * The writes the suite makes, noted as they are answered (the World calls `noteWrite` for every
 * exchange): a request other than GET or HEAD carrying one of the two merchants' keys, with the
 * lookup keys it names — a vendorReference, a transaction id, a session token, in its path, its
 * body or its answer. `witness.ts` reads back what the other merchant holds that they could reach.
 */
import type { WriteKeys } from '../model/index.ts';
import type { Exchange } from './http.ts';
import type { ModelState, Who, WriteSeen } from './model-state.ts';
import type { Contract } from '../judge/contract.ts';

/** A member or path parameter naming a record, by the kind of key it holds. */
const KEY_NAMES: Record<string, keyof WriteKeys> = {
  vendorReference: 'vendorReferences',
  id: 'transactionIds',
  transactionId: 'transactionIds',
  transaction_id: 'transactionIds',
  session_token: 'sessionTokens',
  sessionToken: 'sessionTokens',
};

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A path template's parameters read from a request path (compiled once per template). */
const templates = new Map<string, { names: string[]; re: RegExp }>();
function pathParams(template: string, pathname: string): Record<string, string> {
  let t = templates.get(template);
  if (!t) {
    const names: string[] = [];
    const source = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{([^}]+)\}/g, (_, n: string) => {
      names.push(n);
      return '([^/]+)';
    });
    t = { names, re: new RegExp(`^${source}$`) };
    templates.set(template, t);
  }
  const m = t.re.exec(pathname);
  const out: Record<string, string> = {};
  if (m)
    t.names.forEach((n, i) => {
      try {
        out[n] = decodeURIComponent(m[i + 1]!);
      } catch {
        out[n] = m[i + 1]!;
      }
    });
  return out;
}

/** The keys named by the top-level members of a JSON object (a request body or an answer). */
function addKeys(keys: { [K in keyof WriteKeys]: string[] }, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
    const kind = KEY_NAMES[name];
    if (kind && typeof v === 'string' && v.length > 0 && !keys[kind].includes(v)) keys[kind].push(v);
  }
}

/**
 * Notes exchange `ex` when it is a write with one of the merchants' keys (`keys.main`,
 * `keys.other`), with the keys it names; A1's successes are counted per merchant (a reset with
 * `deleteData` deletes at least those sessions).
 */
export function noteWrite(s: ModelState, contract: Contract, keys: Record<Who, string>, ex: Exchange): void {
  if (READS.has(ex.method) || !contract.has(ex.opId)) return;
  const sent = Object.values(ex.headers);
  const who: Who | undefined = sent.includes(keys.main) ? 'main' : sent.includes(keys.other) ? 'other' : undefined;
  if (!who) return;
  const op = contract.op(ex.opId);
  if (ex.opId === 'createSession' && ex.status === op.successStatus) s.sessionsCreated[who]++;
  const path = new URL(ex.url).pathname;
  const named = { vendorReferences: [] as string[], transactionIds: [] as string[], sessionTokens: [] as string[] };
  addKeys(named, pathParams(op.path, path));
  if (ex.body !== undefined)
    try {
      addKeys(named, JSON.parse(ex.body));
    } catch {
      // not JSON (a media-type probe): it names nothing
    }
  const asked = named.vendorReferences.length + named.transactionIds.length + named.sessionTokens.length > 0;
  addKeys(named, ex.json);
  const write: WriteSeen = {
    who,
    opId: ex.opId,
    status: ex.status,
    method: ex.method,
    path,
    keys: named,
    merchantWide: op.sandbox && !asked && !op.path.includes('{'),
    runId: s.runId,
  };
  s.writes.push(write);
}
