/**
 * Each answer judged against the request that caused it (issue 40 point 4), with the contract's
 * compiled request validators (server/validate.ts `validateRequest`, the ones the contract router
 * runs): a request the contract refuses answered 2xx, and a request the contract accepts refused
 * with a code only a member's schema gives (its `x-error-code`). VALIDATION_ERROR is not judged
 * that way: a server also answers it for rules the schema cannot state (a list cursor it did not
 * issue, a B1 body the suite's controls showed refused with every member valid). A member rule
 * the schema copies (`x-amount-range`) answers a member's code too: a request whose amount is
 * outside the range is not judged on that code. While a key's variant is not
 * known, a request is judged only where both variants' contracts agree.
 */
import { amountRange, type Variant } from '../generated/index.ts';
import { compiledContract, validateRequest, type RequestParts } from '../server/validate.ts';
import type { ProxyFinding } from './report.ts';

/** Per variant: the codes a member's schema gives (every `x-error-code` of the document). */
const SCHEMA_CODES = new Map<Variant, Set<string>>();
function schemaCodes(v: Variant): Set<string> {
  let codes = SCHEMA_CODES.get(v);
  if (codes) return codes;
  codes = new Set<string>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === 'object')
      for (const [k, x] of Object.entries(n)) {
        if (k === 'x-error-code' && typeof x === 'string') codes.add(x);
        else walk(x);
      }
  };
  walk(compiledContract(v).doc);
  SCHEMA_CODES.set(v, codes);
  return codes;
}

/** Whether the request's `total` (a number, or a decimal string in Variant 2) lies outside the amount range. */
function amountOutside(body: unknown): boolean {
  const t = body && typeof body === 'object' ? (body as { total?: unknown }).total : undefined;
  const n = typeof t === 'number' ? t : typeof t === 'string' ? Number(t) : NaN;
  return Number.isFinite(n) && (n < amountRange.minimum || n > amountRange.maximum);
}

export interface JudgedRequest {
  seq: number;
  opId: string;
  variants: readonly Variant[];
  params: Record<string, string>;
  /** The request's query string (after `?`), or ''. */
  search: string;
  headers: Record<string, string>;
  body: unknown;
  /** The request body was cut by the capture limit, or is not JSON: not judged. */
  unreadable: boolean;
  status: number;
  json: unknown;
}

/** The refusal code the contract gives the request in each variant (null: accepted), or undefined when the variants disagree. */
function verdict(r: JudgedRequest): { code: string | null; message: string } | undefined {
  let out: { code: string | null; message: string } | undefined;
  for (const v of r.variants) {
    const query: Record<string, unknown> = {};
    for (const [k, x] of new URLSearchParams(r.search)) query[k] = k in query ? [query[k], x].flat() : x;
    const parts: RequestParts = { params: { ...r.params }, query, headers: r.headers, body: r.body };
    const refusal = validateRequest(v, r.opId, parts);
    const here = { code: refusal?.code ?? null, message: refusal?.message ?? '' };
    if (out !== undefined && out.code !== here.code) return undefined;
    out = here;
  }
  return out;
}

export function judgeRequest(r: JudgedRequest): ProxyFinding[] {
  if (r.unreadable) return [];
  const success = r.status >= 200 && r.status < 300;
  const answered = (r.json as { error?: { code?: unknown } } | undefined)?.error?.code;
  if (!success && !(r.status === 400 && typeof answered === 'string')) return [];
  const v = verdict(r);
  if (v === undefined) return [];
  const at = { operation: r.opId, exchanges: [r.seq] };
  if (success && v.code !== null)
    return [
      {
        kind: 'request',
        jsonPath: '$',
        message: `${r.opId} answered ${r.status} to a request the contract refuses (${v.code}: ${v.message})`,
        expected: v.code,
        actual: r.status,
        ...at,
      },
    ];
  if (!success && v.code === null && r.variants.every((x) => schemaCodes(x).has(answered as string)) && !amountOutside(r.body))
    return [
      {
        kind: 'request',
        jsonPath: '$.error.code',
        message: `${r.opId} refused with 400 ${String(answered)} a request the contract accepts (its schema, every member valid)`,
        expected: 'a request accepted, or a rule refusal',
        actual: answered,
        ...at,
      },
    ];
  return [];
}
