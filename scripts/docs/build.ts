/**
 * `npm run docs`: builds the merchant docs into dist/docs/ (see scripts/docs/README.md).
 * Everything comes from spec/ and generated/; Redoc (via `redocly build-docs --inlineBundle`) renders
 * the two reference pages from the docs bundles, the other pages are generated here.
 */
import { collectionFile, toPostmanCollection } from './postman.ts';
import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { stateMachine } from '../../generated/contract.ts';
import { ROOT, SPEC_DIR } from '../lib/paths.ts';
import { fillSpecValues } from '../lib/rule-spec.ts';
import { docsBundle } from './bundle.ts';
import { diffBundles, renderDifferencesPage, anchor } from './diff.ts';
import { renderErrorsPage } from './errors.ts';
import { renderEventsPage } from './events.ts';
import { BASE_NAV, type NavEntry, code, escapeHtml, renderNav, renderPage } from './html.ts';
import { renderLimitsPage } from './limits.ts';
import { renderInline, renderMarkdown } from './commonmark.ts';
import { listOperations } from './samples.ts';
import { renderStateMachineKey, renderStateMachineSvg } from './state-diagram.ts';
import { textOf } from '../../lib/json.ts';

const run = promisify(execFile);
const HERE = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_OUT_DIR = path.join(ROOT, 'dist', 'docs');
export const GUIDES_DIR = path.join(SPEC_DIR, 'guides');
const REDOCLY_BIN = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

type Json = Record<string, unknown>;

export interface Guide {
  file: string;
  slug: string;
  href: string;
  title: string;
  source: string;
}

export async function loadGuides(dir = GUIDES_DIR): Promise<Guide[]> {
  const files = (await readdir(dir)).filter((f) => f.endsWith('.md') && f !== 'README.md').sort();
  return Promise.all(
    files.map(async (file) => {
      // the facts a guide quotes as {{file#/pointer}} (ADR-086), as spec/ states them now
      const source = (await fillSpecValues(ROOT, await readFile(path.join(dir, file), 'utf8'))).text;
      const title = /^#\s+(.+)$/m.exec(source)?.[1]?.trim();
      if (!title) throw new Error(`spec/guides/${file}: no "# Title" line`);
      const slug = file.replace(/\.md$/, '').replace(/^\d+-/, '');
      return { file, slug, href: `guide-${slug}.html`, title, source };
    }),
  );
}

/** spec/DECISIONS.md as the decisions page shows it: the facts it quotes as {{file#/pointer}} (ADR-086), as spec/ states them now. */
export async function loadDecisions(): Promise<string> {
  return (await fillSpecValues(ROOT, await readFile(path.join(SPEC_DIR, 'DECISIONS.md'), 'utf8'))).text;
}

/** The merchant pages of docs/ served with the merchant docs (the README's path for merchants leads to them). */
export const MERCHANT_PAGES: readonly { file: string; href: string; title: string; label: string }[] = [
  { file: 'docs/merchants.md', href: 'merchants.html', title: 'For merchants: start here', label: 'Merchants: start here' },
];

/**
 * A page of docs/ (`file`, repository-relative) as served with the docs: the blocks between
 * `<!-- repository only -->` and `<!-- /repository only -->` (screenshots) dropped, its title line
 * dropped (the page has its own), links to the guides, the decisions and the other served pages
 * pointed at their served pages, and any other link into the repository kept as its text.
 */
export function servedRepoPage(file: string, source: string, guides: readonly Guide[]): string {
  const served = new Map<string, string>([
    ['spec/DECISIONS.md', 'decisions.html'],
    ...guides.map((g) => [`spec/guides/${g.file}`, g.href] as [string, string]),
    ...MERCHANT_PAGES.map((m) => [m.file, m.href] as [string, string]),
  ]);
  return source
    .replace(/<!-- repository only -->[\s\S]*?<!-- \/repository only -->\n?/g, '')
    .replace(/^#\s+.*\n/m, '')
    .replace(/(!?)\[([^\]]*)\]\(([^)\s]+)\)/g, (whole, bang: string, text: string, target: string) => {
      if (/^(https?:|mailto:|#)/i.test(target)) return bang ? text : whole;
      const [where, hash] = target.split('#') as [string, string | undefined];
      const href = served.get(path.posix.normalize(path.posix.join(path.posix.dirname(file), where)));
      return href && !bang ? `[${text}](${href}${hash ? `#${hash}` : ''})` : text;
    });
}

function firstParagraph(markdown: string): string {
  return (
    markdown
      .trim()
      .split(/\n\s*\n/)[0]
      ?.replace(/\s*\n\s*/g, ' ') ?? ''
  );
}

function landingPage(v1: Json, v2: Json, guides: Guide[]): string {
  const diffs = diffBundles(v1, v2);
  const card = (variant: 1 | 2, doc: Json) => {
    const info = doc.info as Json;
    const ops = listOperations(doc);
    return `<div class="card"><h3><a href="v${variant}.html">Variant ${variant} reference</a></h3>
<p>${renderInline(firstParagraph(textOf(info.description ?? '')))}</p>
<p class="muted">${ops.length} operations (${ops.filter((o) => o.operation['x-sandbox'] === true).length} sandbox). Bundle: <a href="openapi.v${variant}.json">openapi.v${variant}.json</a> · Request collection (Postman v2.1, Bruno, Insomnia): <a href="${collectionFile(variant)}">${collectionFile(variant)}</a></p></div>`;
  };
  const servers = (v1.servers ?? []) as Array<{ url: string; description?: string }>;
  return `<p>PayLater takes buy-now-pay-later payments in MAD (2x, 3x or 4x). Two interface families:
<strong>checkout</strong> (your backend creates a session, the browser SDK takes the payment, your backend verifies)
and <strong>partner transactions</strong> (your backend, POS or ERP creates a transaction; the customer confirms by SMS);
<strong>webhooks</strong> tell your backend what happened.</p>
<h2 id="variants">Two variants, pinned per API key</h2>
<p>The API comes in two variants. Which one you speak is fixed by your API key: every request made with
that key is read and answered in its variant; you do not choose per request. Both variants share every
path, schema, error code and webhook except what is listed below.</p>
<div class="cards">${card(1, v1)}${card(2, v2)}</div>
<p>What differs (${diffs.length}; details side by side on <a href="differences.html">V1 vs V2</a>):</p>
<ul>${diffs.map((d) => `<li><a href="differences.html#${escapeHtml(anchor(d.name))}">${code(d.name)}</a>: ${escapeHtml(d.change === 'differs' ? 'differs' : d.change === 'only-v1' ? 'Variant 1 only' : 'Variant 2 only')}</li>`).join('')}</ul>
<h2 id="start">Start here</h2>
<ul>${MERCHANT_PAGES.map((m) => `<li><a href="${escapeHtml(m.href)}">${escapeHtml(m.title)}</a>: the sandbox on your machine, a paid demo order, your backend's typed client, the browser SDK, webhooks, and the developer loop (listen, trigger, reset, dashboard).</li>`).join('')}</ul>
<h2 id="guides">Guides</h2>
<ul>${guides.map((g) => `<li><a href="${escapeHtml(g.href)}">${escapeHtml(g.title)}</a></li>`).join('')}</ul>
<h2 id="reference">Reference</h2>
<ul>
<li><a href="events.html">Webhook events</a>: each event, its payload and headers, verification, retry schedule.</li>
<li><a href="errors.html">Errors</a>: every status and code, with the condition and the endpoints that answer it.</li>
<li><a href="limits.html">Limits</a>: rates, amounts, lengths, lifetimes and windows.</li>
<li><a href="state-machine.html">State machine</a>: the transaction life cycle and the webhook of each move.</li>
<li><a href="decisions.html">Decisions</a>: every point the original interface left open, decided.</li>
</ul>
<h2 id="servers">Servers</h2>
<ul>${servers.map((s) => `<li>${code(s.url)} — ${escapeHtml(s.description ?? '')}</li>`).join('')}</ul>`;
}

async function stateMachinePage(): Promise<string> {
  const svg = await renderStateMachineSvg(stateMachine);
  const rows = stateMachine.transitions.map(
    (t) =>
      `<tr><td>${code(t.id)}</td><td>${escapeHtml(t.from ? t.from.join(', ') : '(creation)')}</td><td>${escapeHtml(t.to)}</td><td>${code(t.trigger.operationId)} <span class="muted">${escapeHtml(t.trigger.kind)}</span></td><td>${renderInline(t.guard)}</td><td>${t.emits ? `<a href="events.html#${escapeHtml(t.emits)}">${code(t.emits)}</a>` : '—'}</td></tr>`,
  );
  return `<p>Every transaction (partner or checkout) follows this life cycle, read from <code>x-state-machine</code> of
<code>TransactionStatus</code>. The initial state is <code>${escapeHtml(stateMachine.initial)}</code>; a PENDING transaction
expires ${stateMachine.paymentWindow.defaultSeconds / 60} minutes after <code>createdAt</code> by default (${escapeHtml(stateMachine.paymentWindow.decision)}).
Only <code>APPROVED</code> (and later <code>COMPLETED</code>) means paid.</p>
<div class="diagram">${svg}</div>
${renderStateMachineKey(stateMachine)}
<h2 id="states">States</h2>
<div class="table-wrap"><table><thead><tr><th>State</th><th>Terminal</th><th>Meaning</th></tr></thead><tbody>
${Object.entries(stateMachine.states)
  .map(([name, st]) => `<tr><td>${code(name)}</td><td>${st.terminal ? 'yes' : 'no'}</td><td>${renderInline(st.description)}</td></tr>`)
  .join('\n')}
</tbody></table></div>
<h2 id="transitions">Transitions</h2>
<div class="table-wrap"><table><thead><tr><th>Id</th><th>From</th><th>To</th><th>Trigger</th><th>Guard</th><th>Webhook</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table></div>`;
}

async function buildReference(variant: 1 | 2, bundleFile: string, outDir: string, templateFile: string): Promise<void> {
  await run(
    process.execPath,
    [
      REDOCLY_BIN,
      'build-docs',
      bundleFile,
      '-o',
      path.join(outDir, `v${variant}.html`),
      '--inlineBundle',
      '-t',
      templateFile,
      '--lint-config',
      'off',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
      maxBuffer: 16 * 1024 * 1024,
    },
  );
}

/**
 * Redoc CE 3 renders an "API docs by Redocly" attribution whose logo is an <img> loaded from
 * cdn.redoc.ly at view time, with no option to turn it off. The docs must work offline, so the
 * two logo URLs are pointed at self-hosted files (written by the build, same attribution text).
 */
export const REDOC_CDN_ASSETS: Record<string, string> = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': 'assets/redocly-logo-full.svg',
  'https://cdn.redoc.ly/redoc/logo-mini.svg': 'assets/redocly-logo-mini.svg',
};

async function selfHostRedocAssets(htmlFile: string): Promise<void> {
  let html = await readFile(htmlFile, 'utf8');
  for (const [url, local] of Object.entries(REDOC_CDN_ASSETS)) {
    if (!html.includes(url)) throw new Error(`${htmlFile}: expected Redoc to reference ${url}; the self-hosting step needs updating`);
    html = html.split(url).join(local);
  }
  if (html.includes('cdn.redoc.ly')) throw new Error(`${htmlFile}: still references cdn.redoc.ly`);
  await writeFile(htmlFile, html);
}

async function writeRedocAssets(outDir: string): Promise<void> {
  await mkdir(path.join(outDir, 'assets'), { recursive: true });
  const svg = (w: number, text: string) =>
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="20" viewBox="0 0 ${w} 20" role="img" aria-label="Redocly"><text x="0" y="15" font-family="system-ui, sans-serif" font-size="14" font-weight="700" fill="#5b6573">${text}</text></svg>\n`;
  await writeFile(path.join(outDir, 'assets', 'redocly-logo-full.svg'), svg(64, 'Redocly'));
  await writeFile(path.join(outDir, 'assets', 'redocly-logo-mini.svg'), svg(20, 'R'));
}

export const BUILD_INFO = 'build-info.json';

export interface BuildResult {
  outDir: string;
  pages: string[];
  ms: number;
}

export async function buildDocs(outDir = DEFAULT_OUT_DIR): Promise<BuildResult> {
  const started = Date.now();
  await rm(outDir, { recursive: true, force: true });
  await mkdir(outDir, { recursive: true });
  const guides = await loadGuides();
  const nav: NavEntry[] = [
    ...BASE_NAV.slice(0, 1),
    ...MERCHANT_PAGES.map((m) => ({ href: m.href, label: m.label })),
    ...BASE_NAV.slice(1, 3),
    ...guides.map((g) => ({ href: g.href, label: `${g.slug[0]?.toUpperCase() ?? ''}${g.slug.slice(1)} guide` })),
    ...BASE_NAV.slice(3),
  ];
  const v1 = docsBundle(1);
  const v2 = docsBundle(2);
  const pages: string[] = [];
  const write = async (file: string, content: string) => {
    await writeFile(path.join(outDir, file), content);
    pages.push(file);
  };

  // Reference pages, by Redoc, from the docs bundles (written next to the pages: downloadable).
  await writeFile(path.join(outDir, 'openapi.v1.json'), `${JSON.stringify(v1, null, 2)}\n`);
  await writeFile(path.join(outDir, 'openapi.v2.json'), `${JSON.stringify(v2, null, 2)}\n`);
  const buildDir = path.join(ROOT, '.artifacts', 'docs-build');
  await mkdir(buildDir, { recursive: true });
  const templateFile = path.join(buildDir, 'redoc.hbs');
  const template = await readFile(path.join(HERE, 'templates', 'redoc.hbs'), 'utf8');
  const navHtml = (file: string) => renderNav(nav, file);
  await Promise.all(
    ([1, 2] as const).map(async (variant) => {
      const file = templateFile.replace(/\.hbs$/, `.v${variant}.hbs`);
      await writeFile(file, template.replace('<!--NAV-->', navHtml(`v${variant}.html`)));
      await buildReference(variant, path.join(outDir, `openapi.v${variant}.json`), outDir, file);
      await selfHostRedocAssets(path.join(outDir, `v${variant}.html`));
      pages.push(`v${variant}.html`);
    }),
  );

  // Request collections (Postman v2.1; Bruno and Insomnia import them), the sandbox flows as a folder.
  for (const [variant, doc] of [
    [1, v1],
    [2, v2],
  ] as const) {
    await writeFile(path.join(outDir, collectionFile(variant)), `${JSON.stringify(await toPostmanCollection(doc), null, 2)}\n`);
  }

  await writeRedocAssets(outDir);
  await writeFile(path.join(outDir, 'style.css'), await readFile(path.join(HERE, 'templates', 'style.css'), 'utf8'));
  const page = (file: string, title: string, body: string) => write(file, renderPage({ file, title, body, nav }));
  await page('index.html', 'PayLater merchant docs', landingPage(v1, v2, guides));
  await page('events.html', 'Webhook events', await renderEventsPage());
  await page('errors.html', 'Errors', renderErrorsPage());
  await page('limits.html', 'Limits', renderLimitsPage());
  await page('state-machine.html', 'Transaction state machine', await stateMachinePage());
  await page('differences.html', 'Variant 1 vs Variant 2', renderDifferencesPage(v1, v2));
  const decisions = renderMarkdown((await loadDecisions()).replace(/^#\s+.*\n/, ''));
  await page('decisions.html', 'Decisions', decisions.html);
  for (const g of guides) {
    const body = renderMarkdown(g.source.replace(/^#\s+.*\n/m, '')).html;
    await page(g.href, g.title, body);
  }
  for (const m of MERCHANT_PAGES) {
    const source = await readFile(path.join(ROOT, m.file), 'utf8');
    await page(m.href, m.title, renderMarkdown(servedRepoPage(m.file, source, guides)).html);
  }
  const ms = Date.now() - started;
  // Written last: its presence and mtime say a complete build exists (tests reuse a fresh one).
  await writeFile(
    path.join(outDir, BUILD_INFO),
    `${JSON.stringify({ pages: [...pages].sort(), guides: guides.map((g) => g.href), ms }, null, 2)}\n`,
  );
  return { outDir, pages, ms };
}
