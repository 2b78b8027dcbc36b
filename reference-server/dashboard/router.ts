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
import { assetsDir } from '../../lib/package-root.ts';
import { MISSING_BUILD, sendFile, sendHtml } from '../checkout/respond.ts';
import { answerMethodNotAllowed } from '../http/method-not-allowed.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ASSETS = path.join(HERE, 'assets');

const BODY = `    <header>
      <h1>PayLater sandbox dashboard</h1>
      <form id="key-form">
        <label>Test API key <input id="key" type="password" autocomplete="off" placeholder="sk_test_…" required></label>
        <button type="submit">Use key</button>
        <button type="button" id="forget" hidden>Forget key</button>
      </form>
      <p id="status" role="status"></p>
    </header>
    <main id="app" hidden>
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
          <button type="button" data-action="confirm">Confirm</button>
          <button type="button" data-action="cancel">Cancel</button>
          <button type="button" data-action="complete">Complete</button>
        </div>
        <ol id="timeline"></ol>
      </section>
    </main>`;

/**
 * `/dashboard` and its assets; `distDir` is where `npm run build` put the page script (default
 * the package's dist/).
 * @rule ADR-045
 */
export function createDashboardRouter(distDir: string = assetsDir()): Router {
  const router = express.Router();
  const html = page({
    title: 'PayLater sandbox dashboard',
    styles: ['/dashboard/assets/dashboard.css'],
    scripts: ['/dashboard/assets/dashboard.js'],
    body: BODY,
  });
  router.get('/dashboard', (_req, res) => sendHtml(res, html));
  router.get('/dashboard/assets/dashboard.js', (_req, res) =>
    sendFile(res, path.join(distDir, 'dashboard', 'dashboard.js'), 'application/javascript; charset=utf-8', 'no-cache', MISSING_BUILD),
  );
  router.get('/dashboard/assets/dashboard.css', (_req, res) =>
    sendFile(res, path.join(ASSETS, 'dashboard.css'), 'text/css; charset=utf-8', 'no-cache', 'dashboard stylesheet missing'),
  );
  router.use(answerMethodNotAllowed(router));
  return router;
}
