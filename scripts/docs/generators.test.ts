import { describe, expect, it } from 'vitest';
import { errorCatalog, stateMachine, variants, webhookDelivery } from '../../generated/contract.ts';
import { docsBundle, stripInternal } from './bundle.ts';
import { diffBundles, renderDifferencesPage, specTree } from './diff.ts';
import { errorRows, renderErrorsPage, unroutedCodes } from './errors.ts';
import { flattenFields, loadEvents, retryRows } from './events.ts';
import { renderPage, BASE_NAV } from './html.ts';
import { contractLimits, requestLimitRows } from './limits.ts';
import { markdownText, renderInline, renderMarkdown } from './commonmark.ts';
import { edgesOf, renderStateMachineKey, renderStateMachineSvg, stateMachineDot } from './state-diagram.ts';

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
    expect(() =>
      errorRows(
        {},
        { v1: { operations: { x: { method: 'GET', path: '/', sandbox: false, internal: false, errors: { '400': ['NOPE'] } } } } },
      ),
    ).toThrow(/NOPE/);
    expect(() =>
      errorRows(
        { NOPE: { status: 404, description: '' } },
        { v1: { operations: { x: { method: 'GET', path: '/', sandbox: false, internal: false, errors: { '400': ['NOPE'] } } } } },
      ),
    ).toThrow(/catalogue says 404/);
  });
});

describe('limits', () => {
  const rows = requestLimitRows();
  const values = JSON.stringify([rows, contractLimits()]);
  it('contains the seed limits 500, 15000, 200, 100, 0.01, the rate limit and the windows', () => {
    const has = (op: string, field: string, keyword: string, value: unknown) =>
      rows.some(
        (r) => r.operationId === op && r.field === field && r.keyword === keyword && JSON.stringify(r.value) === JSON.stringify(value),
      );
    const biz = rows.find((r) => r.operationId === 'createPartnerTransaction' && r.keyword === 'x-amount-range');
    expect(biz?.value).toEqual({ minimum: 500, maximum: 15000, currency: 'MAD', outside: '422 AMOUNT_OUT_OF_RANGE' });
    const a1 = rows.filter((r) => r.operationId === 'createSession' && r.keyword === 'x-amount-range');
    expect(a1.map((r) => [r.value, r.variants.sort()])).toEqual([
      [{ minimum: 500, maximum: 15000, currency: 'MAD', outside: '400 INVALID_AMOUNT' }, [1, 2]],
    ]);
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

describe('state machine SVG (Graphviz)', async () => {
  const svg = await renderStateMachineSvg(stateMachine);
  /** Each edge group Graphviz drew: its attributes and its content (title, path, arrowhead, label). */
  const edgeGroups = (doc: string) =>
    [
      ...doc.matchAll(
        /<g id="sm_e\d+" class="(edge[^"]*)" data-transition="([^"]+)" data-from="([^"]+)" data-to="([^"]+)"[^>]*>([\s\S]*?)<\/g>/g,
      ),
    ].map((m) => ({
      cls: m[1] ?? '',
      transition: m[2] ?? '',
      from: m[3] ?? '',
      to: m[4] ?? '',
      body: m[5] ?? '',
    }));
  it('has a node per state, an edge per (from, transition) with its label, and is a static SVG', () => {
    const nodes = [...svg.matchAll(/<g id="sm_n\d+" class="node[^"]*" data-state="([^"]+)"/g)].map((m) => m[1]);
    expect(nodes.sort()).toEqual(Object.keys(stateMachine.states).sort());
    const edges = edgeGroups(svg);
    expect(edges.length).toBe(edgesOf(stateMachine).length);
    expect(new Set(edges.map((e) => e.transition))).toEqual(new Set(stateMachine.transitions.map((t) => t.id)));
    for (const e of edges) {
      const t = stateMachine.transitions.find((x) => x.id === e.transition);
      const text = [...e.body.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]).join(' ');
      expect(text, e.transition).toContain(t?.trigger.operationId);
      expect(text, e.transition).toContain(t?.emits ? `emits ${t.emits}` : 'no webhook');
    }
    expect(svg).toMatch(
      /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" class="state-machine" role="img" aria-labelledby="sm-title" viewBox="[\d. ]+" width="\d+" height="\d+">/,
    );
    expect(svg).not.toMatch(/<script|<style|<image|<foreignObject|xlink:href|<!DOCTYPE|<\?xml/);
    expect([...renderStateMachineKey(stateMachine).matchAll(/<li class="rejection"/g)].length).toBe(stateMachine.rejections.length);
  });
  it('distinguishes terminal states (double border) and webhook-emitting edges (solid, accent) from the others (dashed)', () => {
    for (const [name, st] of Object.entries(stateMachine.states)) {
      const g = new RegExp(`<g id="sm_n\\d+" class="([^"]*)" data-state="${name}">([\\s\\S]*?)</g>`).exec(svg);
      expect(g?.[1]?.split(' ').includes('terminal'), name).toBe(st.terminal);
      expect((g?.[2]?.match(/<path /g) ?? []).length, name).toBe(st.terminal ? 2 : 1);
    }
    for (const e of edgeGroups(svg)) {
      const t = stateMachine.transitions.find((x) => x.id === e.transition);
      expect(e.cls.split(' ').includes('emits'), e.transition).toBe(Boolean(t?.emits));
      expect(/<path [^>]*stroke-dasharray/.test(e.body), e.transition).toBe(!t?.emits);
    }
    expect(svg).toMatch(/<g id="sm_start" class="start" data-node="start">/);
  });
  it('follows the input: one more transition gives one more edge', async () => {
    const more = {
      ...stateMachine,
      transitions: [
        ...stateMachine.transitions,
        { id: 'x', from: ['EXPIRED'], to: 'PENDING', trigger: { kind: 'system', operationId: 'revive' }, emits: null },
      ],
    };
    expect(edgeGroups(await renderStateMachineSvg(more)).length).toBe(edgesOf(stateMachine).length + 1);
    expect(stateMachineDot(more)).toContain('revive');
  });
  /** Label text boxes from the SVG: monospace, 0.6 em a character (0.62 with a margin); line box 1.2 em. */
  const labelBoxes = (doc: string) =>
    edgeGroups(doc).flatMap((e, k) =>
      [...e.body.matchAll(/<text[^>]* text-anchor="(\w+)" x="([\d.-]+)" y="([\d.-]+)"[^>]*font-size="([\d.]+)"[^>]*>([^<]*)<\/text>/g)].map(
        (m) => {
          const size = Number(m[4]);
          const w = (m[5] ?? '').length * size * 0.62;
          const x = Number(m[2]) - (m[1] === 'middle' ? w / 2 : m[1] === 'end' ? w : 0);
          return { edge: k, x, y: Number(m[3]) - size, w, h: size * 1.2 };
        },
      ),
    );
  const overlapping = (boxes: ReturnType<typeof labelBoxes>) =>
    boxes.flatMap((a, i) =>
      boxes
        .slice(i + 1)
        .filter((b) => a.edge !== b.edge && a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h)
        .map((b) => `labels of edges ${a.edge} and ${b.edge}`),
    );
  it('labels do not overlap each other (boxes from the SVG text positions, font size and length)', () => {
    const boxes = labelBoxes(svg);
    expect(boxes.length).toBe(2 * edgesOf(stateMachine).length);
    expect(overlapping(boxes)).toEqual([]);
    // The check can fail: the first edge's label moved onto the second's is caught.
    const [first, second] = edgeGroups(svg);
    const at = /<text[^>]* x="([\d.-]+)" y="([\d.-]+)"/.exec(second?.body ?? '');
    const moved = svg.replace(
      first?.body ?? '',
      (first?.body ?? '').replace(/ x="[\d.-]+" y="[\d.-]+"/g, ` x="${at?.[1]}" y="${at?.[2]}"`),
    );
    expect(overlapping(labelBoxes(moved)).length).toBeGreaterThan(0);
  });
});

describe('markdown renderer', () => {
  it('escapes raw HTML and drops unsafe link targets', () => {
    const { html } = renderMarkdown(
      '<script>alert(1)</script>\n\n[x](javascript:alert(1)) [y](//evil.example) [z](errors.html) **b** `<i>`',
    );
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain('javascript:');
    expect(html).not.toContain('//evil.example"');
    expect(html).toContain('<a href="errors.html">z</a>');
    expect(html).toContain('<strong>b</strong>');
    expect(html).toContain('<code>&lt;i&gt;</code>');
  });
  it('renders headings, lists with continuation lines, tables and fences with info', () => {
    const r = renderMarkdown(
      '## ADR-001 — One\n- **Context.** a\n  b\n- c\n\n| A | B |\n|---|---|\n| `x\\|y` | 2 |\n\n```json op=x part=request\n{"a":1}\n```\n',
    );
    expect(r.headings[0]).toMatchObject({ level: 2, id: 'adr-001-one' });
    expect(r.html).toContain('<li><strong>Context.</strong> a b</li>');
    expect(r.html).toContain('<td><code>x|y</code></td>');
    expect(r.codeBlocks[0]).toMatchObject({ lang: 'json', info: 'json op=x part=request', code: '{"a":1}' });
    expect(() => renderMarkdown('```\nopen')).toThrow(/unclosed/);
  });
  it('keeps only relative, http(s) and mailto links in every spelling, and renders no image', () => {
    const { html } = renderMarkdown(
      '[a](data:text/html,x) [b](VBScript:x) [c](&#106;avascript:x) [c2](java\tscript:x) <javascript:alert(1)> [d](mailto:a@b.c) [e](https://x.example/) [f](guide-checkout.html#step) ![i](https://x.example/i.png)',
    );
    const hrefs = [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]);
    expect(hrefs.filter((h) => !/^(mailto:|https:|guide-checkout)/.test(h ?? ''))).toEqual([]);
    expect(hrefs).toEqual(['mailto:a@b.c', 'https://x.example/', 'guide-checkout.html#step', 'https://x.example/i.png']);
    expect(html).not.toContain('<img');
    expect(renderInline('The session `total` <b>x</b> **is** missing')).toBe(
      'The session <code>total</code> &lt;b&gt;x&lt;/b&gt; <strong>is</strong> missing',
    );
    expect(markdownText('outcome is `success` and **now**')).toBe('outcome is success and now');
  });
});

describe('Markdown from the spec is rendered, not shown', () => {
  /** Page text outside code blocks and code spans. */
  const prose = (html: string) => html.replace(/<pre>[\s\S]*?<\/pre>|<code[^>]*>[\s\S]*?<\/code>/g, '').replace(/<[^>]+>/g, '');
  it('error conditions', () => {
    const html = renderErrorsPage();
    expect(prose(html)).not.toMatch(/`|\*\*/);
    expect(html).toContain('The session <code>total</code> is missing');
  });
  it('the V1/V2 page: descriptions rendered, examples kept as JSON data', () => {
    const html = renderDifferencesPage(docsBundle(1), docsBundle(2));
    expect(prose(html)).not.toMatch(/`|\*\*/);
    expect(html).toContain('Only Moroccan dirham (<code>MAD</code>) is supported.');
    expect(specTree({ description: 'Use `a`', example: { description: '`raw`' }, enum: ['X', 'Y'], summary: 'S' })).toBe(
      '<ul class="spec-tree"><li><span class="key">description</span> <div class="md"><p>Use <code>a</code></p>\n</div></li>' +
        '<li><span class="key">example</span> <pre><code class="language-json">{\n  &quot;description&quot;: &quot;`raw`&quot;\n}</code></pre></li>' +
        '<li><span class="key">enum</span> <code>&quot;X&quot;</code>, <code>&quot;Y&quot;</code></li><li><span class="key">summary</span> S</li></ul>',
    );
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
    expect(stripInternal({ paths: { '/a': { get: { 'x-internal': true } } }, tags: [{ name: 't', 'x-internal': true }] })).toEqual({
      paths: {},
      tags: [],
    });
  });
  it('pages link relatively, load one stylesheet and carry no inline script or style', () => {
    const html = renderPage({ file: 'errors.html', title: 'E', body: '<p>x</p>', nav: BASE_NAV });
    expect(html).toContain('<link rel="stylesheet" href="style.css">');
    expect(html).not.toMatch(/<script|style=|href="\//);
    expect(html).toContain('aria-current="page"');
  });
});
