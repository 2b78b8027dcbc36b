/**
 * The limits table: every constraint keyword on what a merchant sends (request bodies and
 * parameters of each operation, both variants), plus the machine-readable limits of the contract:
 * `x-rate-limit`, `x-amount-range` (with `x-business-rule`), the token lifetime, the payment window and
 * the webhook delivery rules. Read from the bundled documents and generated/contract.ts.
 */
import { loadBundledDocument } from '../../generated/index.ts';
import { amountRange, errorCatalog, maxBodyBytes, stateMachine, tokenLifetimeSeconds, webhookDelivery } from '../../generated/contract.ts';
import { deref } from '../lib/consistency.ts';
import { code, escapeHtml, table } from './html.ts';
import { listOperations } from './samples.ts';
import { textOf } from '../../lib/json.ts';

type Json = Record<string, unknown>;

export const CONSTRAINT_KEYWORDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'enum',
  'const',
  'x-amount-range',
] as const;

/** What the table shows of a keyword: for `x-amount-range`, the range and the answer outside it (`x-business-rule` or `x-error-code`). */
function shown(s: Json, keyword: string): unknown {
  if (keyword !== 'x-amount-range') return s[keyword];
  const { minimum, maximum, currency } = s[keyword] as Json;
  const rule = s['x-business-rule'] as Json | undefined;
  const code = String(rule ? rule.code : s['x-error-code']);
  return { minimum, maximum, currency, outside: `${errorCatalog[code as keyof typeof errorCatalog]?.status ?? '?'} ${code}` };
}

export interface LimitRow {
  operationId: string;
  field: string;
  keyword: string;
  value: unknown;
  variants: number[];
}

function walk(schema: unknown, field: string, emit: (field: string, keyword: string, value: unknown) => void, depth = 0): void {
  if (depth > 20 || !schema || typeof schema !== 'object') return;
  const s = schema as Json;
  for (const k of CONSTRAINT_KEYWORDS) if (k in s) emit(field, k, shown(s, k));
  for (const comb of ['allOf', 'oneOf', 'anyOf'] as const) {
    for (const sub of (s[comb] ?? []) as unknown[]) walk(sub, field, emit, depth + 1);
  }
  for (const [name, sub] of Object.entries((s.properties ?? {}) as Json)) {
    walk(sub, field ? `${field}.${name}` : name, emit, depth + 1);
  }
  if (s.items) walk(s.items, `${field}[]`, emit, depth + 1);
}

export function requestLimitRows(variantList: readonly (1 | 2)[] = [1, 2]): LimitRow[] {
  const rows = new Map<string, LimitRow>();
  for (const variant of variantList) {
    const doc = loadBundledDocument(variant);
    for (const ref of listOperations(doc)) {
      const emit = (field: string, keyword: string, value: unknown) => {
        const key = `${ref.operationId}|${field}|${keyword}|${JSON.stringify(value)}`;
        const row = rows.get(key);
        if (row) {
          if (!row.variants.includes(variant)) row.variants.push(variant);
        } else rows.set(key, { operationId: ref.operationId, field, keyword, value, variants: [variant] });
      };
      const params = [...((ref.pathItem.parameters ?? []) as unknown[]), ...((ref.operation.parameters ?? []) as unknown[])];
      for (const p of params) {
        const param = deref(doc, p) as Json;
        walk(param.schema, `${String(param.in)} ${String(param.name)}`, emit);
      }
      const body = deref(doc, ref.operation.requestBody) as Json | undefined;
      const schema = ((body?.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema;
      if (schema) walk(deref(doc, schema), 'body', emit);
    }
  }
  return [...rows.values()];
}

export interface ContractLimit {
  limit: string;
  value: string;
  appliesTo: string;
  source: string;
}

export function contractLimits(): ContractLimit[] {
  const out: ContractLimit[] = [];
  for (const variant of [1, 2] as const) {
    const doc = loadBundledDocument(variant);
    for (const ref of listOperations(doc)) {
      const rl = ref.operation['x-rate-limit'] as Json | undefined;
      if (!rl) continue;
      const row: ContractLimit = {
        limit: 'Request rate',
        value: `${String(rl.limit)} requests per ${String(rl.windowSeconds)} s window, keyed on ${String(rl.keyedOn)}; then 429 whose retry_after, Retry-After and RateLimit-Reset are the seconds left in the window`,
        appliesTo: `${ref.operationId} (${ref.method} ${ref.path})`,
        source: `x-rate-limit (${textOf(rl.decision ?? '')})`,
      };
      if (!out.some((o) => o.value === row.value && o.appliesTo === row.appliesTo)) out.push(row);
    }
  }
  const answers = requestLimitRows()
    .filter((r) => r.keyword === 'x-amount-range')
    .map((r) => `${r.operationId} ${r.field}: ${String((r.value as Json).outside)}`);
  out.push({
    limit: 'Amount range',
    value: `${amountRange.minimum} to ${amountRange.maximum} ${amountRange.currency}, both included; outside: "<field> ${amountRange.rule}"`,
    appliesTo: [...new Set(answers)].join('; '),
    source: 'x-amount-range',
  });
  out.push({
    limit: 'Request body size',
    value: `at most ${maxBodyBytes.toLocaleString('en-US')} bytes (${maxBodyBytes / 1024} kB); larger gets 413 PAYLOAD_TOO_LARGE`,
    appliesTo: 'every operation with a request body',
    source: 'x-max-body-bytes',
  });
  out.push({
    limit: 'Session token lifetime',
    value: `${tokenLifetimeSeconds} s`,
    appliesTo: 'tokens of createSession; getTransactionStatusBySessionToken',
    source: 'tokenLifetimeSeconds',
  });
  out.push({
    limit: 'Payment window',
    value: `${stateMachine.paymentWindow.defaultSeconds} s (${stateMachine.paymentWindow.defaultSeconds / 60} min) from createdAt by default${stateMachine.paymentWindow.configurable ? ', configurable per deployment' : ''}`,
    appliesTo: 'every PENDING transaction (then EXPIRED)',
    source: `x-state-machine.paymentWindow (${stateMachine.paymentWindow.decision})`,
  });
  const r = webhookDelivery.retry;
  out.push({
    limit: 'Webhook attempts',
    value: `${r.delaysSeconds.length} attempts after ${r.delaysSeconds.join(', ')} s (±${r.jitter * 100} % jitter), ${r.timeoutSeconds} s timeout each`,
    appliesTo: 'webhook delivery',
    source: `x-webhook-delivery (${webhookDelivery.decision})`,
  });
  out.push({
    limit: 'Webhook timestamp tolerance',
    value: `${webhookDelivery.signature.toleranceSeconds} s`,
    appliesTo: 'webhook verification',
    source: 'x-webhook-delivery.signature',
  });
  return out;
}

function formatValue(keyword: string, value: unknown): string {
  if (keyword === 'pattern') return code(String(value));
  if (keyword === 'format' && value === 'mad') return `${code('mad')} <span class="muted">(MAD, at most two decimals)</span>`;
  if (keyword === 'enum') return (value as unknown[]).map((v) => code(v)).join(' ');
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value as Json)
      .map(([k, v]) => `${escapeHtml(k)}: ${code(v)}`)
      .join(', ');
  }
  return code(value);
}

export function renderLimitsPage(): string {
  const rows = requestLimitRows();
  const contract = table(
    ['Limit', 'Value', 'Applies to', 'Source'],
    contractLimits().map((l) => [escapeHtml(l.limit), escapeHtml(l.value), escapeHtml(l.appliesTo), code(l.source)]),
    'limits-contract',
  );
  const byOp = new Map<string, LimitRow[]>();
  for (const r of rows) byOp.set(r.operationId, [...(byOp.get(r.operationId) ?? []), r]);
  const sections = [...byOp.entries()]
    .map(
      ([op, rs]) =>
        `<h3 id="op-${escapeHtml(op)}">${escapeHtml(op)}</h3>\n` +
        table(
          ['Field', 'Constraint', 'Value', 'Variants'],
          rs.map((r) => [code(r.field), code(r.keyword), formatValue(r.keyword, r.value), escapeHtml(r.variants.join(', '))]),
          'limits-fields',
        ),
    )
    .join('\n');
  return `<p>Every number here is read from the spec: the schema keywords of what you send, and the
contract's own extensions. A request that breaks a schema constraint gets 400 (see <a href="errors.html">Errors</a>); one
that breaks a business limit gets 422.</p>
<h2 id="contract">Rates, lifetimes and windows</h2>
${contract}
<h2 id="fields">Field constraints by operation (${rows.length})</h2>
${sections}`;
}
