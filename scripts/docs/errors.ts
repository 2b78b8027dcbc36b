/**
 * The error reference: one row per (operation, error code) that the operation declares, in either
 * variant, with the catalogue's status and condition (`errorCatalog` + `variants.vN.operations[].errors`
 * of generated/contract.ts), plus the codes no operation declares (answered by the router itself).
 * Conditions are the catalogue's Markdown descriptions, rendered.
 */
import { errorCatalog, variants } from '../../generated/contract.ts';
import { renderInline } from './commonmark.ts';
import { code, escapeHtml, table } from './html.ts';

export interface ErrorRow {
  status: number;
  code: string;
  condition: string;
  operationId: string;
  method: string;
  path: string;
  variants: number[];
  sandbox: boolean;
  internal: boolean;
}

interface OpFacts {
  method: string;
  path: string;
  sandbox: boolean;
  internal: boolean;
  errors: Record<string, readonly string[]>;
}

type Catalog = Record<string, { status: number; description: string }>;

export function errorRows(
  catalog: Catalog = errorCatalog,
  vs: Record<string, { operations: Record<string, OpFacts> }> = variants,
): ErrorRow[] {
  const rows = new Map<string, ErrorRow>();
  for (const [vKey, v] of Object.entries(vs)) {
    const variant = Number(vKey.replace(/^v/, ''));
    for (const [operationId, op] of Object.entries(v.operations)) {
      for (const [status, codes] of Object.entries(op.errors)) {
        for (const c of codes) {
          const entry = catalog[c];
          if (!entry) throw new Error(`${operationId}: error code ${c} is not in the catalogue`);
          if (entry.status !== Number(status)) {
            throw new Error(`${operationId}: ${c} declared under ${status} but the catalogue says ${entry.status}`);
          }
          const key = `${operationId} ${c}`;
          const row = rows.get(key);
          if (row) {
            if (row.method !== op.method || row.path !== op.path) throw new Error(`${operationId} differs between variants`);
            row.variants.push(variant);
          } else {
            rows.set(key, {
              status: entry.status,
              code: c,
              condition: entry.description,
              operationId,
              method: op.method,
              path: op.path,
              variants: [variant],
              sandbox: op.sandbox,
              internal: op.internal,
            });
          }
        }
      }
    }
  }
  return [...rows.values()].sort(
    (a, b) => a.status - b.status || a.code.localeCompare(b.code) || a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
  );
}

/** Catalogue codes that no operation declares. */
export function unroutedCodes(rows: readonly ErrorRow[], catalog: Catalog = errorCatalog): string[] {
  const used = new Set(rows.map((r) => r.code));
  return Object.keys(catalog).filter((c) => !used.has(c));
}

function endpointCell(r: ErrorRow): string {
  const marks = [
    r.variants.length === 1 ? `Variant ${r.variants[0]} only` : '',
    r.sandbox ? 'sandbox' : '',
    r.internal ? 'SDK internal' : '',
  ].filter(Boolean);
  return `${code(`${r.method} ${r.path}`)}<br><span class="muted">${escapeHtml(r.operationId)}${marks.length ? ` · ${escapeHtml(marks.join(' · '))}` : ''}</span>`;
}

export function renderErrorsPage(): string {
  const rows = errorRows();
  const catalog = errorCatalog as unknown as Catalog;
  const byCode = new Map<string, ErrorRow[]>();
  for (const r of rows) byCode.set(r.code, [...(byCode.get(r.code) ?? []), r]);
  const unrouted = unroutedCodes(rows);
  const catalogueTable = table(
    ['Status', 'Code', 'Condition', 'Endpoints'],
    Object.entries(catalog)
      .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
      .map(([c, e]) => [
        String(e.status),
        `<code id="code-${escapeHtml(c)}">${escapeHtml(c)}</code>`,
        renderInline(e.description),
        unrouted.includes(c)
          ? '<span class="muted">any request that matches no operation (answered by the router)</span>'
          : (byCode.get(c) ?? []).map((r) => code(`${r.method} ${r.path}`)).join('<br>'),
      ]),
    'errors-catalogue',
  );
  const detail = table(
    ['Status', 'Code', 'Condition', 'Endpoint'],
    rows.map((r) => [String(r.status), code(r.code), renderInline(r.condition), endpointCell(r)]),
    'errors-by-endpoint',
  );
  return `<p>Every error answer has the body <code>{ "error": { "code", "message" } }</code> (ADR-001), plus
<code>details</code> for validation errors and <code>retry_after</code> for 429. Branch on <code>error.code</code>; the
message is for people. Each operation declares exactly the codes below; the catalogue is the
<code>ErrorCode</code> schema, where each code has one status.</p>
<h2 id="catalogue">Catalogue</h2>
${catalogueTable}
<h2 id="by-endpoint">By endpoint (${rows.length} rows)</h2>
<p>One row per code an operation can answer, in both variants unless marked.</p>
${detail}`;
}
