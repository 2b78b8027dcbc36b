/**
 * `/dashboard` (ADR-045): the merchant's sandbox in a page, built on the sandbox API only.
 * The page is static (HTML, one script, one stylesheet, strict CSP); the test key is typed
 * once and kept in the tab's sessionStorage by the script, never put in a URL. The script
 * (page/dashboard-page.ts) is bundled by `npm run build` into dist/dashboard/dashboard.js.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { page } from '../checkout/html.ts';
import { escapeHtml } from '../../lib/html.ts';
import { stateMachine, variants } from '../../generated/index.ts';
import { assetsDir } from '../../lib/package-root.ts';
import { MISSING_BUILD, sendFile, sendHtml } from '../checkout/respond.ts';
import { answerMethodNotAllowed } from '../http/method-not-allowed.ts';
import { listenOrigin } from '../http/origin.ts';
import { pageJson } from '../http/page-body.ts';
import { runCertify } from '../../certify/certify.ts';
import { htmlReport } from '../../certify/report.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ASSETS = path.join(HERE, 'assets');

/** A merchant the dashboard offers to pick (a local sandbox on the built-in demo merchants only). */
export interface OfferedMerchant {
  name: string;
  apiKey: string;
  variant: 1 | 2;
}

/** The choice of demo merchants: one button each, its test key in `data-key` for the page script. */
function merchantChoice(offered: readonly OfferedMerchant[]): string {
  if (offered.length === 0) return '';
  const buttons = offered
    .map((m) => `<button type="button" data-key="${escapeHtml(m.apiKey)}">${escapeHtml(m.name)} (Variant ${m.variant})</button>`)
    .join(' ');
  return `
      <p id="demo-merchants">Open the sandbox of a demo merchant: ${buttons}</p>`;
}

/** A move the dashboard offers on the selected transaction: a sandbox operation on it, and the statuses it moves from. */
export interface DashboardMove {
  /** The last segment of its path, `/api/v1/sandbox/transactions/{transactionId}/<action>`. */
  action: string;
  operationId: string;
  from: string[];
}

const ACTION_PATH = /^\/api\/v1\/sandbox\/transactions\/\{transactionId\}\/([a-z-]+)$/;

/**
 * The moves of x-state-machine a merchant makes from the dashboard: each transition triggered by a
 * sandbox operation on one transaction (`POST …/sandbox/transactions/{transactionId}/<action>`), in
 * the operation table's order, with every status a transition of it moves from. The page offers a
 * move only on a transaction in one of those statuses: what the state machine allows, nothing else.
 */
export function dashboardMoves(): DashboardMove[] {
  const ops: Record<string, { method: string; path: string }> = variants.v1.operations;
  const moves: DashboardMove[] = [];
  for (const [operationId, op] of Object.entries(ops)) {
    const action = op.method === 'POST' ? ACTION_PATH.exec(op.path)?.[1] : undefined;
    if (!action) continue;
    const from = stateMachine.transitions.flatMap((t) => (t.trigger.operationId === operationId && t.from !== null ? t.from : []));
    if (from.length) moves.push({ action, operationId, from: [...new Set(from)] });
  }
  return moves;
}

const moveButtons = (): string =>
  dashboardMoves()
    .map(
      (m) =>
        `<button type="button" data-action="${escapeHtml(m.action)}" data-from="${escapeHtml(m.from.join(' '))}" hidden>${escapeHtml(m.action[0]!.toUpperCase() + m.action.slice(1))}</button>`,
    )
    .join('\n          ');

const body = (
  offered: readonly OfferedMerchant[],
): string => `<nav class="site-nav" aria-label="Site"><a class="brand" href="/">PayLater</a><ul><li><a href="/docs/">Docs</a></li><li><a href="/demo">Demo shop</a></li><li><a href="/dashboard" aria-current="page">Dashboard</a></li><li><a href="/dashboard/go-live">Go-live check</a></li></ul></nav>
    <header class="page">
      <h1>PayLater sandbox dashboard</h1>${merchantChoice(offered)}
      <form id="key-form">
        <label>Test API key <input id="key" type="password" autocomplete="off" placeholder="sk_test_…" required></label>
        <button type="submit">Use key</button>
        <button type="button" id="forget" hidden>Forget key</button>
      </form>
      <p id="status" role="status"></p>
    </header>
    <main id="app" class="page" hidden>
      <section id="sandbox-actions">
        <span id="clock"></span>
        <label>Advance <input id="advance-seconds" type="number" min="1" value="60"> s</label>
        <button type="button" id="advance">Advance clock</button>
        <button type="button" id="reset">Reset sandbox</button>
      </section>
      <section>
        <form id="filters">
          <label>Status <select id="filter-status"><option value="">any</option><option>PENDING</option><option>APPROVED</option><option>CANCELED</option><option>EXPIRED</option><option>COMPLETED</option></select></label>
          <label>vendorReference <input id="filter-ref" type="text"></label>
          <button type="submit">Filter</button>
        </form>
        <table id="transactions"><thead><tr><th>Created</th><th>Id</th><th>vendorReference</th><th>Amount</th><th>Status</th></tr></thead><tbody></tbody></table>
        <button type="button" id="more" hidden>Older transactions</button>
      </section>
      <section id="detail" hidden>
        <h2 id="detail-title"></h2>
        <div id="detail-actions">
          ${moveButtons()}
        </div>
        <ol id="timeline"></ol>
      </section>
    </main>`;

const GO_LIVE_BODY = `<nav class="site-nav" aria-label="Site"><a class="brand" href="/">PayLater</a><ul><li><a href="/docs/">Docs</a></li><li><a href="/demo">Demo shop</a></li><li><a href="/dashboard">Dashboard</a></li><li><a href="/dashboard/go-live" aria-current="page">Go-live check</a></li></ul></nav>
    <header class="page">
      <h1>Go-live check</h1>
      <p>Each item of the checklist, its verdict (pass, fail, not observed) and the section of <a href="/docs/guide-go-live.html">Before you go live</a> that fixes it.</p>
      <form id="check">
        <p id="key-row"><label>Test API key <input id="key" type="password" autocomplete="off" placeholder="sk_test_…"></label></p>
        <p><label>Webhook URL <input id="webhook-url" type="url" placeholder="the URL the sandbox delivers to"></label></p>
        <p><label>Observe <input id="observe" type="number" min="0" max="600" value="0"> s</label>
        <label><input id="resilience" type="checkbox"> inject a 429 and a 500 into A1 while observing</label></p>
        <button type="submit" id="run">Run the check</button>
      </form>
      <p id="status" role="status"></p>
    </header>
    <main class="page">
      <p id="summary"></p>
      <table id="items"><thead><tr><th>Verdict</th><th>Item</th><th>What was seen</th><th>Guide</th></tr></thead><tbody></tbody></table>
      <p><a id="download" download="paylater-go-live.html" hidden>Download the HTML report</a></p>
    </main>`;

type Json = Record<string, unknown>;
const refuse = (res: express.Response, status: number, code: string, message: string) =>
  res.status(status).json({ error: { code, message } });

/**
 * \`POST /dashboard/go-live/run\`: the checklist of \`paylater certify\` for the caller's test key
 * (\`X-API-Key\`) against this server, its report as JSON and as the HTML page.
 */
async function runGoLive(req: express.Request, res: express.Response): Promise<void> {
  const key = req.get('X-API-Key')?.trim() ?? '';
  if (!key.startsWith('sk_test_')) return void refuse(res, 401, 'INVALID_API_KEY', 'Send your test key (sk_test_…) in X-API-Key');
  const body = (req.body ?? {}) as Json;
  const webhookUrl = body.webhookUrl ?? null;
  const observe = body.observeSeconds ?? 0;
  const resilience = body.resilience ?? false;
  if (webhookUrl !== null && (typeof webhookUrl !== 'string' || !/^https?:\/\/\S{1,2040}$/.test(webhookUrl)))
    return void refuse(res, 400, 'VALIDATION_ERROR', 'webhookUrl must be an http(s) URL or null');
  if (typeof observe !== 'number' || !Number.isInteger(observe) || observe < 0 || observe > 600)
    return void refuse(res, 400, 'VALIDATION_ERROR', 'observeSeconds must be whole seconds from 0 to 600');
  if (typeof resilience !== 'boolean' || (resilience && observe === 0))
    return void refuse(res, 400, 'VALIDATION_ERROR', 'resilience must be a boolean, and needs observeSeconds');
  const origin = listenOrigin(req);
  try {
    const report = await runCertify({
      baseUrl: origin,
      apiKey: key,
      webhookUrl,
      docsUrl: `${origin}/docs`,
      observeMs: observe * 1000,
      resilience,
    });
    res.json({ report, html: htmlReport(report) });
  } catch (e) {
    // the sandbox refused the key (or could not be read): its own answer, as certify reports it
    refuse(res, 400, 'VALIDATION_ERROR', (e as Error).message);
  }
}

/**
 * \`/dashboard\` and its assets; `distDir` is where `npm run build` put the page script (default
 * the package's dist/).
 * @rule ADR-045
 */
export function createDashboardRouter(distDir: string = assetsDir(), offered: readonly OfferedMerchant[] = []): Router {
  const router = express.Router();
  const html = page({
    title: 'PayLater sandbox dashboard',
    styles: ['/docs/style.css', '/dashboard/assets/dashboard.css'],
    scripts: ['/dashboard/assets/dashboard.js'],
    bodyClass: 'docs',
    body: body(offered),
  });
  router.get('/dashboard', (_req, res) => sendHtml(res, html));
  const goLive = page({
    title: 'PayLater go-live check',
    styles: ['/docs/style.css', '/dashboard/assets/dashboard.css'],
    bodyClass: 'docs',
    scripts: ['/dashboard/assets/go-live.js'],
    body: GO_LIVE_BODY,
  });
  router.get('/dashboard/go-live', (_req, res) => sendHtml(res, goLive));
  router.post('/dashboard/go-live/run', pageJson({ limitBytes: 4 * 1024 }), (req, res, next) => void runGoLive(req, res).catch(next));
  router.get('/dashboard/assets/go-live.js', (_req, res) =>
    sendFile(res, path.join(distDir, 'dashboard', 'go-live.js'), 'application/javascript; charset=utf-8', 'no-cache', MISSING_BUILD),
  );
  router.get('/dashboard/assets/dashboard.js', (_req, res) =>
    sendFile(res, path.join(distDir, 'dashboard', 'dashboard.js'), 'application/javascript; charset=utf-8', 'no-cache', MISSING_BUILD),
  );
  router.get('/dashboard/assets/dashboard.css', (_req, res) =>
    sendFile(res, path.join(ASSETS, 'dashboard.css'), 'text/css; charset=utf-8', 'no-cache', 'dashboard stylesheet missing'),
  );
  router.use(answerMethodNotAllowed(router));
  return router;
}
