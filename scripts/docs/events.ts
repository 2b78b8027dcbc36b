/**
 * The webhook events page, from spec/asyncapi.yaml parsed by @asyncapi/parser (messages, their
 * headers and payloads — the shared schema files) and `webhookDelivery` of generated/contract.ts
 * (signature and retry schedule).
 */
import { webhookDelivery } from '../../generated/contract.ts';
import { parseAsyncApi } from '../lib/spec.ts';
import { code, escapeHtml, table } from './html.ts';
import { renderInline, renderMarkdown } from './commonmark.ts';
import { textOf } from '../../lib/json.ts';

type Json = Record<string, unknown>;

export interface FieldRow {
  field: string;
  type: string;
  required: boolean;
  description: string;
  constraints: string[];
}

interface Collected {
  props: Map<string, Json[]>;
  required: Set<string>;
  forbidden: Set<string>;
}

function collect(schema: unknown, acc: Collected = { props: new Map(), required: new Set(), forbidden: new Set() }): Collected {
  if (!schema || typeof schema !== 'object') return acc;
  const s = schema as Json;
  for (const sub of (s.allOf ?? []) as unknown[]) collect(sub, acc);
  for (const r of (s.required ?? []) as string[]) acc.required.add(r);
  for (const [name, p] of Object.entries((s.properties ?? {}) as Json)) {
    if (p === false) acc.forbidden.add(name);
    else acc.props.set(name, [...(acc.props.get(name) ?? []), p as Json]);
  }
  return acc;
}

function typeOf(s: Json): string {
  if ('const' in s) return `const ${JSON.stringify(s.const)}`;
  const t = s.type;
  const base = Array.isArray(t) ? t.join(' | ') : typeof t === 'string' ? t : s.allOf ? 'object' : 'any';
  return s.format ? `${base} (${textOf(s.format)})` : base;
}

const SHOWN = ['enum', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'maxLength', 'minLength'] as const;

/** Flattens an object schema (allOf merged, `false` properties dropped) into dotted field rows. */
export function flattenFields(schema: unknown, prefix = ''): FieldRow[] {
  const c = collect(schema);
  const rows: FieldRow[] = [];
  for (const [name, parts] of c.props) {
    if (c.forbidden.has(name)) continue;
    const merged: Json = {};
    for (const p of parts) {
      for (const [k, v] of Object.entries(p)) {
        if (k === 'allOf') merged.allOf = [...((merged.allOf ?? []) as unknown[]), ...(v as unknown[])];
        else merged[k] = v;
      }
    }
    // A `$ref`-only allOf member (already resolved by the parser) brings type/format/description.
    for (const sub of (merged.allOf ?? []) as Json[]) for (const [k, v] of Object.entries(sub)) if (!(k in merged)) merged[k] = v;
    const field = prefix ? `${prefix}.${name}` : name;
    const constraints = SHOWN.filter((k) => k in merged).map((k) => `${k}: ${JSON.stringify(merged[k])}`);
    rows.push({
      field,
      type: typeOf(merged),
      required: c.required.has(name),
      description: typeof merged.description === 'string' ? merged.description.trim() : '',
      constraints,
    });
    if (merged.properties || (merged.allOf as unknown[] | undefined)?.some((x) => (x as Json).properties)) {
      rows.push(...flattenFields(merged, field));
    }
  }
  return rows;
}

export interface EventInfo {
  name: string;
  title: string;
  summary: string;
  headers: FieldRow[];
  payload: FieldRow[];
  example: unknown;
}

export async function loadEvents(): Promise<{ description: string; events: EventInfo[] }> {
  const { document } = await parseAsyncApi();
  const events: EventInfo[] = [];
  for (const m of document.allMessages()) {
    // AsyncAPI 3 with an explicit schemaFormat: the parser keeps { schemaFormat, schema }.
    const unwrap = (j: Json | undefined): Json | undefined => (j && 'schemaFormat' in j && j.schema ? (j.schema as Json) : j);
    const payload = unwrap(m.payload()?.json());
    const headers = unwrap(m.headers()?.json());
    events.push({
      name: m.name() ?? m.id(),
      title: m.title() ?? '',
      summary: m.summary() ?? '',
      headers: flattenFields(headers),
      payload: flattenFields(payload),
      example: (payload?.examples as unknown[] | undefined)?.[0],
    });
  }
  return { description: document.info().description() ?? '', events };
}

function fieldTable(rows: FieldRow[], cls: string): string {
  return table(
    ['Field', 'Type', 'Required', 'Description'],
    rows.map((r) => [
      code(r.field),
      escapeHtml(r.type),
      r.required ? 'yes' : 'no',
      renderInline(r.description) + (r.constraints.length ? `<br><span class="muted">${escapeHtml(r.constraints.join('; '))}</span>` : ''),
    ]),
    cls,
  );
}

export function formatDuration(seconds: number): string {
  if (seconds === 0) return '0 s';
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${+(seconds / 60).toFixed(1)} min`;
  return `${+(seconds / 3600).toFixed(2)} h`;
}

export function retryRows(): string[][] {
  const r = webhookDelivery.retry;
  let total = 0;
  return r.delaysSeconds.map((d, i) => {
    total += d;
    return [
      String(i + 1),
      escapeHtml(i === 0 ? 'at once' : `${formatDuration(d)} after attempt ${i}`),
      escapeHtml(formatDuration(total)),
      escapeHtml(`${(total * 1000) / r.sandboxCompression} ms`),
    ];
  });
}

export async function renderEventsPage(): Promise<string> {
  const { description, events } = await loadEvents();
  const s = webhookDelivery.signature;
  const r = webhookDelivery.retry;
  const list = events
    .map(
      (e) => `<section class="event" id="${escapeHtml(e.name)}">
<h2><code>${escapeHtml(e.name)}</code> — ${escapeHtml(e.title)}</h2>
<p>${renderInline(e.summary)}</p>
<h3>Payload</h3>
${fieldTable(e.payload, 'event-payload')}
<h3>Headers</h3>
${fieldTable(e.headers, 'event-headers')}
${e.example === undefined ? '' : `<h3>Example body</h3>\n<pre><code class="language-json">${escapeHtml(JSON.stringify(e.example, null, 2))}</code></pre>`}
</section>`,
    )
    .join('\n');
  return `${renderMarkdown(description).html}
<p>Events, in both variants: ${events.map((e) => `<a href="#${escapeHtml(e.name)}"><code>${escapeHtml(e.name)}</code></a>`).join(', ')}.</p>
<h2 id="verify">How to verify a webhook</h2>
<ol>
<li>Read the <strong>raw</strong> request body (bytes as received; do not re-serialise parsed JSON).</li>
<li>Compute ${escapeHtml(s.algorithm)} of ${code(s.signedContent)}, keyed with the base64-decoded part of your secret after ${code(s.secretPrefix)}, and base64 it.</li>
<li>Accept when one of the space-separated ${code('v1,<signature>')} entries of ${code('webhook-signature')} equals it (constant-time compare), and ${code('webhook-timestamp')} is within ${s.toleranceSeconds} s of your clock.</li>
<li>Answer 2xx at once, process asynchronously, and skip a ${code('webhook-id')} you have already processed: retries carry the same id and the same body.</li>
</ol>
<p>Scheme: ${code(s.scheme)} (ADR-005). The <code>sdk/webhooks</code> verifier does all of this: see the <a href="guide-webhooks.html">webhook guide</a>.</p>
<h2 id="retries">Retry schedule</h2>
<p>Any answer other than 2xx, a refused connection or a timeout of ${r.timeoutSeconds} s is retried. Each delay varies by ±${r.jitter * 100} %;
a <code>Retry-After</code> on ${r.respectRetryAfter.join(' or ')} replaces the delay when longer; ${r.disableOn.join(', ')} disables the endpoint;
redirects are ${r.followRedirects ? '' : 'not '}followed. The sandbox runs the schedule ${r.sandboxCompression} times faster.</p>
${table(['Attempt', 'When', 'Since first attempt', 'In the sandbox'], retryRows(), 'retry-schedule')}
${list}`;
}
