/**
 * The built site in headless Debian Chromium (playwright-core, one browser): every page loads with
 * no console error, no page error and no request leaving the site; the reference pages show every
 * operation; the errors page every code; no page shows Markdown syntax outside code; the state
 * diagram renders with no label overlapping a label, a state or an arrow. Screenshots are kept in
 * .artifacts/docs-screenshots/. The site is served under /docs/ (as the reference server does) and
 * the landing page is also opened from disk.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCatalog, stateMachine } from '../../generated/contract.ts';
import { ROOT } from '../lib/paths.ts';
import { BUILD_INFO, DEFAULT_OUT_DIR, buildDocs } from './build.ts';
import { docsBundle } from './bundle.ts';
import { listOperations } from './samples.ts';
import { edgesOf } from './state-diagram.ts';

const OUT = DEFAULT_OUT_DIR;
const SHOTS = path.join(ROOT, '.artifacts', 'docs-screenshots');
const CHROMIUM = '/usr/bin/chromium';

async function newestInput(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const s = await stat(path.join(entry.parentPath, entry.name));
    newest = Math.max(newest, s.mtimeMs);
  }
  return newest;
}

/** Reuses dist/docs when its build-info is newer than every input; builds otherwise. */
async function ensureBuilt(): Promise<string[]> {
  const info = path.join(OUT, BUILD_INFO);
  const inputs = Math.max(
    ...(await Promise.all(['spec', 'generated', 'scripts/docs', 'scripts/lib', 'docs'].map((d) => newestInput(path.join(ROOT, d))))),
  );
  if (!existsSync(info) || (await stat(info)).mtimeMs < inputs) await buildDocs(OUT);
  return (JSON.parse(await readFile(info, 'utf8')) as { pages: string[] }).pages;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
};

function serve(root: string): Promise<http.Server> {
  const respond = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://x');
    const rel = decodeURIComponent(url.pathname.replace(/^\/docs\//, ''));
    const file = path.join(root, rel === '' ? 'index.html' : rel);
    if (!url.pathname.startsWith('/docs/') || !file.startsWith(root) || !existsSync(file)) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream' });
    res.end(await readFile(file));
  };
  const server = http.createServer((req, res) => void respond(req, res).catch(() => res.writeHead(500).end()));
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

interface Problems {
  console: string[];
  failed: string[];
  offsite: string[];
}

let pages: string[] = [];
let server: http.Server;
let base = '';
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  pages = await ensureBuilt();
  await mkdir(SHOTS, { recursive: true });
  server = await serve(OUT);
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/docs/`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  context = await browser.newContext({ viewport: { width: 1360, height: 900 } });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

const LOCAL = /^(blob:|data:|about:|file:)/;

async function open(url: string, settle?: (page: Page) => Promise<void>): Promise<{ page: Page; problems: Problems }> {
  const page = await context.newPage();
  const problems: Problems = { console: [], failed: [], offsite: [] };
  page.on('console', (m) => {
    if (m.type() === 'error') problems.console.push(m.text());
  });
  page.on('pageerror', (e) => problems.console.push(`pageerror: ${e.message}`));
  page.on('requestfailed', (r) => problems.failed.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.failed.push(`${r.url()} ${r.status()}`);
  });
  await page.route('**/*', (route) => {
    const u = route.request().url();
    if (LOCAL.test(u) || u.startsWith(base)) return route.continue();
    problems.offsite.push(u);
    return route.abort();
  });
  await page.goto(url, { waitUntil: 'load' });
  if (settle) await settle(page);
  // A page with scripts (the Redoc references) may still fetch after 'load'; a page without any
  // (asserted below for every other page) has fetched all it will by then, fonts aside.
  if (await page.$$eval('script', (s) => s.length > 0)) await page.waitForLoadState('networkidle');
  else await page.evaluate(() => document.fonts.ready.then(() => undefined));
  return { page, problems };
}

interface Visit {
  problems: Problems;
  hrefs: string[];
  sheets: (string | null)[];
  scripts: number;
  markdown: string[];
}

let visits: Promise<Map<string, Visit>> | undefined;

/** Opens one built page and keeps what the every-page tests look at; a first-screen screenshot is kept. */
async function visit(file: string): Promise<Visit> {
  const { page, problems } = await open(base + file, async (p) => {
    if (/^v\d\.html$/.test(file)) await p.locator('#redoc').waitFor();
  });
  // The first screen only: a full-page capture of the longest pages cost seconds each, and the
  // state diagram has its own screenshot.
  await page.screenshot({ path: path.join(SHOTS, file.replace(/\.html$/, '.png')) });
  const v: Visit = {
    problems,
    hrefs: await page.$$eval('nav.site-nav a, main a', (as) => as.map((a) => a.getAttribute('href') ?? '')),
    sheets: await page.$$eval('link[rel=stylesheet]', (ls) => ls.map((l) => l.getAttribute('href'))),
    scripts: await page.$$eval('script', (s) => s.length),
    markdown: await page.evaluate(visibleMarkdown),
  };
  await page.close();
  return v;
}

/**
 * Every built page, opened once for the tests that look at every page, three tabs at a time: most
 * of a page's time is waiting on the browser, not this process's CPU.
 */
function visitAll(): Promise<Map<string, Visit>> {
  visits ??= (async () => {
    const found: Visit[] = [];
    let next = 0;
    const tab = async (): Promise<void> => {
      for (let i = next++; i < pages.length; i = next++) found[i] = await visit(pages[i] as string);
    };
    await Promise.all([tab(), tab(), tab()]);
    return new Map(pages.map((file, i) => [file, found[i] as Visit]));
  })();
  return visits;
}

/**
 * Runs in the page (self-contained): the geometry of the state diagram in screen pixels. A label is
 * the text of one edge; it must not intersect another label, a state, or any arrow (its line sampled
 * every 2 px, and its arrowhead). Also the smallest rendered font size of any diagram text, whether
 * each state's name lies inside its shape, and whether the diagram fits its box without scrolling.
 */
function diagramGeometry(): { labels: number; problems: string[]; minFontPx: number; fits: boolean } {
  type Box = { x: number; y: number; w: number; h: number };
  const svg = document.querySelector('svg.state-machine') as SVGSVGElement;
  const box = (r: DOMRect): Box => ({ x: r.x, y: r.y, w: r.width, h: r.height });
  const union = (bs: Box[]): Box => {
    const x = Math.min(...bs.map((b) => b.x));
    const y = Math.min(...bs.map((b) => b.y));
    return { x, y, w: Math.max(...bs.map((b) => b.x + b.w)) - x, h: Math.max(...bs.map((b) => b.y + b.h)) - y };
  };
  const hit = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
  const inside = (p: { x: number; y: number }, b: Box) =>
    p.x > b.x + 0.5 && p.x < b.x + b.w - 0.5 && p.y > b.y + 0.5 && p.y < b.y + b.h - 0.5;
  const labels = [...svg.querySelectorAll('g[data-transition]')]
    .filter((g) => g.querySelector('text'))
    .map((g, i) => ({
      name: `${g.getAttribute('data-transition')}#${i}`,
      box: union([...g.querySelectorAll('text')].map((t) => box(t.getBoundingClientRect()))),
    }));
  const shapes = 'path, rect, ellipse, circle, polygon';
  const nodes = [...svg.querySelectorAll('g.node, g.start')].map((g) => ({
    name: g.getAttribute('data-state') ?? 'start',
    box: union([...g.querySelectorAll(shapes)].map((s) => box(s.getBoundingClientRect()))),
    text: [...g.querySelectorAll('text')].map((t) => box(t.getBoundingClientRect())),
  }));
  const problems: string[] = [];
  labels.forEach((a, i) => {
    for (const b of labels.slice(i + 1)) if (hit(a.box, b.box)) problems.push(`label ${a.name} overlaps label ${b.name}`);
    for (const n of nodes) if (hit(a.box, n.box)) problems.push(`label ${a.name} overlaps state ${n.name}`);
  });
  for (const n of nodes)
    for (const t of n.text)
      if (!(t.x >= n.box.x && t.x + t.w <= n.box.x + n.box.w)) problems.push(`state ${n.name}: name outside its shape`);
  for (const g of svg.querySelectorAll('g.edge[data-transition]')) {
    const arrow = `${g.getAttribute('data-transition')} (${g.getAttribute('data-from')} → ${g.getAttribute('data-to')})`;
    const crossed = new Set<string>();
    for (const p of g.querySelectorAll('path')) {
      const m = p.getScreenCTM();
      if (!m) continue;
      for (let d = 0, len = p.getTotalLength(); d <= len; d += 2) {
        const q = new DOMPoint(p.getPointAtLength(d).x, p.getPointAtLength(d).y).matrixTransform(m);
        for (const l of labels) if (inside(q, l.box)) crossed.add(l.name);
      }
    }
    for (const head of g.querySelectorAll('polygon'))
      for (const l of labels) if (hit(box(head.getBoundingClientRect()), l.box)) crossed.add(l.name);
    for (const l of crossed) problems.push(`arrow ${arrow} crosses label ${l}`);
  }
  const scale = svg.getScreenCTM()?.a ?? 1;
  const minFontPx = Math.min(...[...svg.querySelectorAll('text')].map((t) => parseFloat(getComputedStyle(t).fontSize) * scale));
  const frame = svg.parentElement as HTMLElement;
  return { labels: labels.length, problems, minFontPx, fits: frame.scrollWidth <= frame.clientWidth };
}

/** Runs in the page: text outside code that still looks like Markdown (backticks, **, __, ~~, ](, # heading). */
function visibleMarkdown(): string[] {
  const out: string[] = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest('pre, code, script, style, textarea')) continue;
    const t = n.textContent ?? '';
    if (/`|\*\*|__|~~|\]\(|^\s*#{1,6}\s/m.test(t)) out.push(`${el.tagName.toLowerCase()}: ${t.trim().slice(0, 160)}`);
  }
  return out;
}

describe('docs site in Chromium', () => {
  it('was built with every page', () => {
    for (const p of [
      'index.html',
      'v1.html',
      'v2.html',
      'events.html',
      'errors.html',
      'limits.html',
      'state-machine.html',
      'decisions.html',
      'differences.html',
      'merchants.html',
    ]) {
      expect(pages).toContain(p);
    }
    expect(pages.filter((p) => p.startsWith('guide-')).length).toBe(5);
  });

  it('every page loads under /docs/ with no console error, no failed or off-site request; links resolve', async () => {
    const visited = await visitAll();
    expect([...visited.keys()]).toEqual(pages);
    for (const [file, v] of visited) {
      expect(v.problems, file).toEqual({ console: [], failed: [], offsite: [] });
      // Site links are relative and point at files that exist.
      for (const h of v.hrefs) {
        expect(h, `${file}: ${h}`).not.toMatch(/^\//);
        if (/^[a-z]+:/i.test(h) || h.startsWith('#')) continue;
        expect(existsSync(path.join(OUT, h.split('#')[0] ?? '')), `${file} links ${h}`).toBe(true);
      }
      expect(v.sheets, file).toContain('style.css');
      if (!/^v\d\.html$/.test(file)) expect(v.scripts, `${file}: scripts`).toBe(0);
    }
  }, 90_000);

  it('the landing page also works from disk (file://), with relative links', async () => {
    const { page, problems } = await open(pathToFileURL(path.join(OUT, 'index.html')).href);
    expect(problems).toEqual({ console: [], failed: [], offsite: [] });
    await page.click('nav.site-nav >> text=Errors');
    await page.waitForLoadState('load');
    expect(page.url()).toMatch(/\/dist\/docs\/errors\.html$/);
    await page.close();
  });

  for (const variant of [1, 2] as const) {
    it(`Variant ${variant} reference shows every operation's summary and its code samples`, async () => {
      const doc = docsBundle(variant);
      const ops = listOperations(doc);
      const tags = [...new Set(ops.map((o) => ((o.operation.tags as string[] | undefined) ?? [])[0] ?? ''))];
      const { page, problems } = await open(`${base}v${variant}.html`, (p) => p.locator('#redoc').waitFor());
      const seen = new Set<string>();
      for (const tag of tags) {
        await page.locator('#redoc').getByText(tag, { exact: true }).first().click();
        const first = ops.find((o) => (o.operation.tags as string[])[0] === tag);
        await page
          .getByRole('heading', { name: String(first?.operation.summary) })
          .first()
          .waitFor();
        const text = await page.locator('#redoc').innerText();
        for (const o of ops.filter((x) => (x.operation.tags as string[])[0] === tag)) {
          if (text.includes(String(o.operation.summary))) seen.add(o.operationId);
        }
        if (tag === 'Checkout') await page.screenshot({ path: path.join(SHOTS, `v${variant}-checkout.png`) });
      }
      expect([...seen].sort()).toEqual(ops.map((o) => o.operationId).sort());
      // The curl sample of createSession is on the page (generated, from the request example).
      await page.locator('#redoc').getByText('Checkout', { exact: true }).first().click();
      await expect.poll(async () => (await page.locator('#redoc').innerText()).includes('curl -X POST')).toBe(true);
      expect(problems).toEqual({ console: [], failed: [], offsite: [] });
      await page.close();
    }, 60_000);
  }

  it('the errors page lists every error code of the catalogue', async () => {
    const { page } = await open(`${base}errors.html`);
    const text = await page.locator('main').innerText();
    for (const c of Object.keys(errorCatalog)) expect(text, c).toContain(c);
    await page.close();
  });

  it('the state machine SVG renders a node per state and an edge per transition', async () => {
    const { page } = await open(`${base}state-machine.html`);
    const svg = page.locator('svg.state-machine');
    const box = await svg.boundingBox();
    expect(box && box.width > 300 && box.height > 200).toBe(true);
    expect(await svg.locator('g.node').count()).toBe(Object.keys(stateMachine.states).length);
    expect(await svg.locator('g.edge').count()).toBe(edgesOf(stateMachine).length);
    for (const s of Object.keys(stateMachine.states)) {
      const b = await svg.locator(`g.node[data-state="${s}"]`).boundingBox();
      expect(b && b.width > 0 && b.height > 0, s).toBe(true);
    }
    for (const t of stateMachine.transitions) {
      const b = await svg.locator(`g.edge[data-transition="${t.id}"] path`).first().boundingBox();
      expect(b && b.width > 0, t.id).toBe(true);
    }
    expect(await page.locator('ul.rejections li.rejection').count()).toBe(stateMachine.rejections.length);
    // Kept as an artifact: the diagram as a merchant sees it.
    await svg.screenshot({ path: path.join(SHOTS, 'state-machine-svg.png') });
    await page.close();
  });

  it('the state diagram: no label overlaps another label, a state or an arrow; every text is readable at the page width', async () => {
    const { page } = await open(`${base}state-machine.html`);
    const g = await page.evaluate(diagramGeometry);
    expect(g.labels).toBe(edgesOf(stateMachine).length);
    expect(g.problems).toEqual([]);
    expect(g.minFontPx).toBeGreaterThanOrEqual(11);
    expect(g.fits).toBe(true);
    await page.close();
  });

  it('no page shows literal backticks or Markdown syntax (code and code blocks aside)', async () => {
    const visited = await visitAll();
    expect([...visited.keys()]).toEqual(pages);
    for (const [file, v] of visited) expect(v.markdown, file).toEqual([]);
  }, 90_000);
});
