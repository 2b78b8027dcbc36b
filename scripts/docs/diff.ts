/**
 * What differs between Variant 1 and Variant 2, computed by diffing the two docs bundles:
 * operations present in one only, operations that differ, and components (schemas, responses, …)
 * that are in one only or differ, each shown side by side as a tree with its descriptions rendered.
 */
import { renderMarkdown } from './commonmark.ts';
import { code, escapeHtml, table } from './html.ts';
import { listOperations } from './samples.ts';

type Json = Record<string, unknown>;

function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Json).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

export interface Difference {
  kind: 'operation' | 'component';
  name: string;
  /** `only-v1`, `only-v2` or `differs`. */
  change: 'only-v1' | 'only-v2' | 'differs';
  v1?: unknown;
  v2?: unknown;
}

/** For two objects that differ, keeps only their top-level keys whose values differ. */
export function differingKeys(a: unknown, b: unknown): { v1: unknown; v2: unknown } {
  if (!a || !b || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) || Array.isArray(b)) return { v1: a, v2: b };
  const x = a as Json;
  const y = b as Json;
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => canonical(x[k]) !== canonical(y[k]));
  return {
    v1: Object.fromEntries(keys.filter((k) => k in x).map((k) => [k, x[k]])),
    v2: Object.fromEntries(keys.filter((k) => k in y).map((k) => [k, y[k]])),
  };
}

function withoutSamples(op: Json): Json {
  const { 'x-codeSamples': _s, ...rest } = op;
  return rest;
}

export function diffBundles(v1: Json, v2: Json): Difference[] {
  const out: Difference[] = [];
  const ops1 = new Map(listOperations(v1).map((o) => [o.operationId, o]));
  const ops2 = new Map(listOperations(v2).map((o) => [o.operationId, o]));
  for (const id of new Set([...ops1.keys(), ...ops2.keys()])) {
    const a = ops1.get(id);
    const b = ops2.get(id);
    const label = `${(a ?? b)?.method} ${(a ?? b)?.path} (${id})`;
    if (a && !b) out.push({ kind: 'operation', name: label, change: 'only-v1', v1: withoutSamples(a.operation) });
    else if (b && !a) out.push({ kind: 'operation', name: label, change: 'only-v2', v2: withoutSamples(b.operation) });
    else if (
      a &&
      b &&
      (a.method !== b.method || a.path !== b.path || canonical(withoutSamples(a.operation)) !== canonical(withoutSamples(b.operation)))
    ) {
      out.push({
        kind: 'operation',
        name: label,
        change: 'differs',
        ...differingKeys(withoutSamples(a.operation), withoutSamples(b.operation)),
      });
    }
  }
  const comp1 = (v1.components ?? {}) as Record<string, Json>;
  const comp2 = (v2.components ?? {}) as Record<string, Json>;
  for (const section of [...new Set([...Object.keys(comp1), ...Object.keys(comp2)])].sort()) {
    const s1 = comp1[section] ?? {};
    const s2 = comp2[section] ?? {};
    for (const name of [...new Set([...Object.keys(s1), ...Object.keys(s2)])].sort()) {
      const label = `components/${section}/${name}`;
      if (name in s1 && !(name in s2)) out.push({ kind: 'component', name: label, change: 'only-v1', v1: s1[name] });
      else if (name in s2 && !(name in s1)) out.push({ kind: 'component', name: label, change: 'only-v2', v2: s2[name] });
      else if (canonical(s1[name]) !== canonical(s2[name]))
        out.push({ kind: 'component', name: label, change: 'differs', ...differingKeys(s1[name], s2[name]) });
    }
  }
  return out;
}

/** Keys whose value is data (examples, defaults), shown as JSON rather than read as spec. */
const DATA_KEYS = new Set(['example', 'value', 'default', 'const', 'enum', 'x-codeSamples']);

/**
 * A spec fragment as a nested list: keys in code, scalars in code, and every `description` (Markdown
 * in OpenAPI) rendered, so no Markdown source shows; data (examples, defaults) stays JSON.
 */
export function specTree(value: unknown, key = ''): string {
  if (value !== null && typeof value === 'object' && (DATA_KEYS.has(key) || (key === 'examples' && Array.isArray(value)))) {
    if (Array.isArray(value) && value.every((v) => v === null || typeof v !== 'object'))
      return value.map((v) => code(JSON.stringify(v))).join(', ');
    return `<pre><code class="language-json">${escapeHtml(JSON.stringify(value, null, 2))}</code></pre>`;
  }
  if (typeof value === 'string') {
    if (key === 'description') return `<div class="md">${renderMarkdown(value).html}</div>`;
    if (key === 'summary' || key === 'title') return escapeHtml(value);
    return code(value);
  }
  if (value === null || typeof value !== 'object') return code(JSON.stringify(value));
  if (Array.isArray(value)) {
    if (value.length === 0) return code('[]');
    if (value.every((v) => v === null || typeof v !== 'object')) return value.map((v) => specTree(v)).join(', ');
    return `<ol class="spec-tree">${value.map((v) => `<li>${specTree(v)}</li>`).join('')}</ol>`;
  }
  const entries = Object.entries(value as Json);
  if (entries.length === 0) return code('{}');
  return `<ul class="spec-tree">${entries.map(([k, v]) => `<li><span class="key">${escapeHtml(k)}</span> ${specTree(v, k)}</li>`).join('')}</ul>`;
}

function sideBlock(value: unknown): string {
  return value === undefined ? '<p class="muted">absent in this variant</p>' : `<div class="spec-pane">${specTree(value)}</div>`;
}

const CHANGE_LABEL = { 'only-v1': 'Variant 1 only', 'only-v2': 'Variant 2 only', differs: 'differs' } as const;

export function renderDifferencesPage(v1: Json, v2: Json): string {
  const diffs = diffBundles(v1, v2);
  const summary = table(
    ['What', 'Change'],
    diffs.map((d) => [`<a href="#${escapeHtml(anchor(d.name))}">${code(d.name)}</a>`, escapeHtml(CHANGE_LABEL[d.change])]),
    'diff-summary',
  );
  const detail = diffs
    .map(
      (d) => `<section class="diff" id="${escapeHtml(anchor(d.name))}">
<h3>${code(d.name)} <span class="badge">${escapeHtml(CHANGE_LABEL[d.change])}</span></h3>
<div class="side-by-side"><div><h4>Variant 1</h4>${sideBlock(d.v1)}</div><div><h4>Variant 2</h4>${sideBlock(d.v2)}</div></div>
</section>`,
    )
    .join('\n');
  return `<p>A merchant's variant is pinned per API key. This page is computed by comparing the two docs bundles
(<a href="openapi.v1.json">openapi.v1.json</a>, <a href="openapi.v2.json">openapi.v2.json</a>): everything not listed here is identical.
Code samples are left out of the comparison (they differ only by the client factory's name). For what differs, only the
differing top-level keys are shown.</p>
<h2 id="summary">Summary (${diffs.length})</h2>
${summary}
<h2 id="detail">Side by side</h2>
${detail}`;
}

export function anchor(name: string): string {
  return `diff-${name.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '')}`;
}
