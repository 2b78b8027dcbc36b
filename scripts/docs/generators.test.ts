import { describe, expect, it } from 'vitest';
import { errorCatalog, stateMachine, variants, webhookDelivery } from '../../generated/contract.ts';
import { docsBundle, stripInternal } from './bundle.ts';
import { diffBundles } from './diff.ts';
import { errorRows, unroutedCodes } from './errors.ts';
import { flattenFields, loadEvents, retryRows } from './events.ts';
import { renderPage, BASE_NAV } from './html.ts';
import { contractLimits, requestLimitRows } from './limits.ts';
import { renderMarkdown } from './markdown.ts';
import { edgesOf, renderStateMachineSvg } from './state-machine-svg.ts';

describe('error reference', () => {
  const rows = errorRows();
  it('has one row per (operation, code) declared in either variant, with the catalogue status', () => {
    const expected = new Set<string>();
    for (const v of Object.values(variants)) {
      for (const [id, op] of Object.entries(v.operations)) {
        for (const [status, codes] of Object.entries(op.errors as Record<string, readonly string[]>)) {
          for (const c of codes) expected.add(`${id} ${status} ${c}`);
        }
      }
    }
    expect(new Set(rows.map((r) => `${r.operationId} ${r.status} ${r.code}`))).toEqual(expected);
    expect(rows.length).toBe(expected.size);
    for (const r of rows) expect(r.status).toBe(errorCatalog[r.code as keyof typeof errorCatalog].status);
  });
  it('covers the whole catalogue (codes no operation declares are listed apart)', () => {
    const covered = new Set([...rows.map((r) => r.code), ...unroutedCodes(rows)]);
    expect(covered).toEqual(new Set(Object.keys(errorCatalog)));
  });
  it('marks A3 as Variant 1 only and refuses a code the catalogue does not have', () => {
    expect(rows.filter((r) => r.operationId === 'verifyTransaction').every((r) => r.variants.join() === '1')).toBe(true);
    expect(() => errorRows({}, { v1: { operations: { x: { method: 'GET', path: '/', sandbox: false, internal: false, errors: { '400': ['NOPE'] } } } } })).toThrow(/NOPE/);
    expect(() =>
      errorRows({ NOPE: { status: 404, description: '' } }, { v1: { operations: { x: { method: 'GET', path: '/', sandbox: false, internal: false, errors: { '400': ['NOPE'] } } } } }),
    ).toThrow(/catalogue says 404/);
  });
});

describe('limits', () => {
  const rows = requestLimitRows();
  const values = JSON.stringify([rows, contractLimits()]);
  it('contains the seed limits 500, 15000, 200, 100, 0.01, the rate limit and the windows', () => {
    const has = (op: string, field: string, keyword: string, value: unknown) =>
      rows.some((r) => r.operationId === op && r.field === field && r.keyword === keyword && JSON.stringify(r.value) === JSON.stringify(value));
    const biz = rows.find((r) => r.operationId === 'createPartnerTransaction' && r.keyword === 'x-amount-range');
    expect(biz?.value).toEqual({ minimum: 500, maximum: 15000, currency: 'MAD', outside: '422 AMOUNT_OUT_OF_RANGE' });
    const a1 = rows.filter((r) => r.operationId === 'createSession' && r.keyword === 'x-amount-range');
    expect(a1.map((r) => [r.value, r.variants.sort()])).toEqual([[{ minimum: 500, maximum: 15000, currency: 'MAD', outside: '400 INVALID_AMOUNT' }, [1, 2]]]);
    expect(has('createPartnerTransaction', 'body.items[].name', 'maxLength', 200)).toBe(true);
    expect(has('createPartnerTransaction', 'body.items[].reference', 'maxLength', 100)).toBe(true);
    expect(has('createPartnerTransaction', 'body.items[].unitPrice', 'minimum', 0.01)).toBe(true);
    expect(has('createPartnerTransaction', 'body.items[].quantity', 'minimum', 1)).toBe(true);
    expect(has('createPartnerTransaction', 'body.items', 'minItems', 1)).toBe(true);
    expect(has('createSession', 'body.currency', 'enum', ['MAD']) || has('createSession', 'body.currency', 'const', 'MAD')).toBe(true);
    const v1Total = rows.filter((r) => r.operationId === 'createSession' && r.field === 'body.total');
    expect(v1Total.some((r) => r.keyword === 'minimum' && r.value === 500 && r.variants.includes(1))).toBe(true);
    expect(v1Total.some((r) => r.keyword === 'maximum' && r.value === 15000 && r.variants.includes(1))).toBe(true);
    for (const n of ['500', '15000', '200', '100', '0.01']) expect(values).toContain(n);
    const c = contractLimits();
    expect(c.find((l) => l.limit === 'Request rate')?.value).toContain('100 requests per 900 s');
    expect(c.find((l) => l.limit === 'Session token lifetime')?.value).toBe('3600 s');
    expect(c.find((l) => l.limit === 'Amount range')?.value).toContain('"<field> must be between 500.00 and 15000.00 MAD"');
    expect(c.find((l) => l.limit === 'Payment window')?.value).toContain('1800 s');
  });
});

describe('state machine SVG', () => {
  const svg = renderStateMachineSvg(stateMachine);
  it('has a node per state, an edge per (from, transition), a label per edge, a line per rejection', () => {
    const nodes = [...svg.matchAll(/<g class="node[^"]*" data-state="([^"]+)"/g)].map((m) => m[1]);
    expect(nodes.sort()).toEqual(Object.keys(stateMachine.states).sort());
    const edges = [...svg.matchAll(/<g class="edge" data-transition="([^"]+)"/g)].map((m) => m[1]);
    expect(edges.length).toBe(edgesOf(stateMachine).length);
    expect(new Set(edges)).toEqual(new Set(stateMachine.transitions.map((t) => t.id)));
    for (const t of stateMachine.transitions) {
      const label = new RegExp(`data-transition="${t.id}">[\\s\\S]*?${t.trigger.operationId}[\\s\\S]*?${t.emits ? `emits ${t.emits.replace('.', '\\.')}` : 'no webhook'}`);
      expect(svg).toMatch(label);
    }
    expect([...svg.matchAll(/<g class="rejection"/g)].length).toBe(stateMachine.rejections.length);
  });
  it('follows the input: one more transition gives one more edge', () => {
    const more = {
      ...stateMachine,
      transitions: [...stateMachine.transitions, { id: 'x', from: ['EXPIRED'], to: 'PENDING', trigger: { kind: 'system', operationId: 'revive' }, emits: null }],
    };
    expect([...renderStateMachineSvg(more).matchAll(/<g class="edge" /g)].length).toBe(edgesOf(stateMachine).length + 1);
  });
  it('labels do not overlap each other', () => {
    const boxes = [...svg.matchAll(/<g class="edge-label"[^>]*>(?:<line[^>]*\/>)?<rect x="([\d.-]+)" y="([\d.-]+)" width="([\d.]+)" height="([\d.]+)"/g)].map((m) =>
      m.slice(1, 5).map(Number),
    );
    expect(boxes.length).toBe(edgesOf(stateMachine).length);
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [ax, ay, aw, ah] = boxes[i] as number[];
        const [bx, by, bw, bh] = boxes[j] as number[];
        const overlap = ax! < bx! + bw! && bx! < ax! + aw! && ay! < by! + bh! && by! < ay! + ah!;
        expect(overlap, `labels ${i} and ${j}`).toBe(false);
      }
    }
  });
});

describe('markdown renderer', () => {
  it('escapes raw HTML and drops unsafe link targets', () => {
    const { html } = renderMarkdown('<script>alert(1)</script>\n\n[x](javascript:alert(1)) [y](//evil.example) [z](errors.html) **b** `<i>`');
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('//evil.example"');
    expect(html).toContain('<a href="errors.html">z</a>');
    expect(html).toContain('<strong>b</strong>');
    expect(html).toContain('<code>&lt;i&gt;</code>');
  });
  it('renders headings, lists with continuation lines, tables and fences with info', () => {
    const r = renderMarkdown('## ADR-001 — One\n- **Context.** a\n  b\n- c\n\n| A | B |\n|---|---|\n| `x|y` | 2 |\n\n```json op=x part=request\n{"a":1}\n```\n');
    expect(r.headings[0]).toMatchObject({ level: 2, id: 'adr-001-one' });
    expect(r.html).toContain('<li><strong>Context.</strong> a b</li>');
    expect(r.html).toContain('<td><code>x|y</code></td>');
    expect(r.codeBlocks[0]).toMatchObject({ lang: 'json', info: 'json op=x part=request', code: '{"a":1}' });
    expect(() => renderMarkdown('```\nopen')).toThrow(/unclosed/);
  });
});

describe('events, diff, bundle, page shell', () => {
  it('events come from the AsyncAPI document with the shared payload fields', async () => {
    const { events } = await loadEvents();
    expect(events.map((e) => e.name).sort()).toEqual(['transaction.approved', 'transaction.cancelled', 'transaction.expired']);
    const approved = events.find((e) => e.name === 'transaction.approved');
    const fields = approved?.payload.map((f) => f.field) ?? [];
    expect(fields).toEqual(expect.arrayContaining(['event', 'timestamp', 'data', 'data.id', 'data.vendorReference', 'data.approvedAt']));
    expect(fields).not.toContain('data.expiredAt');
    expect(approved?.headers.map((h) => h.field).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(events.find((e) => e.name === 'transaction.expired')?.payload.map((f) => f.field)).toContain('data.expiredAt');
  });
  it('retry schedule rows follow webhookDelivery', () => {
    expect(retryRows().length).toBe(webhookDelivery.retry.delaysSeconds.length);
    expect(flattenFields({ type: 'object', required: ['a'], properties: { a: { type: 'string' }, b: false } })).toEqual([
      { field: 'a', type: 'string', required: true, description: '', constraints: [] },
    ]);
  });
  it('the V1/V2 diff finds A3 only in V1 and the session schemas differing', () => {
    const d = diffBundles(docsBundle(1), docsBundle(2));
    const names = d.map((x) => `${x.change} ${x.name}`);
    expect(names).toContain('only-v1 GET /api/v1/public/transactions/{transactionId} (verifyTransaction)');
    expect(names).toContain('differs POST /api/v1/public/sessions (createSession)');
    expect(names.some((n) => /only-v1 components\/schemas\/SessionRequestV1/.test(n))).toBe(true);
    expect(names.some((n) => /only-v2 components\/schemas\/SessionResponseV2/.test(n))).toBe(true);
    expect(diffBundles(docsBundle(2), docsBundle(2))).toEqual([]);
  });
  it('the docs bundle drops x-internal operations and adds two samples to every other one', () => {
    const doc = docsBundle(2);
    const text = JSON.stringify(doc.paths);
    expect(text).not.toContain('/api/v1/public/sdk/');
    for (const item of Object.values(doc.paths as Record<string, Record<string, { 'x-codeSamples'?: unknown[] }>>)) {
      for (const op of Object.values(item)) expect(op['x-codeSamples']).toHaveLength(2);
    }
    expect(stripInternal({ paths: { '/a': { get: { 'x-internal': true } } }, tags: [{ name: 't', 'x-internal': true }] })).toEqual({ paths: {}, tags: [] });
  });
  it('pages link relatively, load one stylesheet and carry no inline script or style', () => {
    const html = renderPage({ file: 'errors.html', title: 'E', body: '<p>x</p>', nav: BASE_NAV });
    expect(html).toContain('<link rel="stylesheet" href="style.css">');
    expect(html).not.toMatch(/<script|style=|href="\//);
    expect(html).toContain('aria-current="page"');
  });
});
