/**
 * `GET /`: a small landing page (ADR-040) linking what the server serves to a person — the
 * docs, and in the sandbox the demo shop and the dashboard — and the service probes. Under
 * the strict CSP of the hosted page: no script, no inline style.
 */
import express from 'express';
import { answerMethodNotAllowed } from './http/method-not-allowed.ts';
import { escapeHtml } from '../lib/html.ts';
import { page } from './checkout/html.ts';
import { sendHtml } from './checkout/respond.ts';
import type { Mode } from './config.ts';

export interface LandingLink {
  href: string;
  title: string;
  text: string;
}

/** The links of the landing page in `mode` (the demo shop and the dashboard take test keys: sandbox only). */
export function landingLinks(mode: Mode): LandingLink[] {
  return [
    { href: '/docs/', title: 'Docs', text: 'The merchant guides, the API reference of both variants, the error catalogue.' },
    ...(mode === 'sandbox'
      ? [
          {
            href: '/demo',
            title: 'Demo shop',
            text: 'A shop paying with the browser SDK and the hosted checkout page, with the demo test keys.',
          },
          {
            href: '/dashboard',
            title: 'Dashboard',
            text: 'Your test transactions, their timeline, SMS and webhook deliveries, and the sandbox actions.',
          },
        ]
      : []),
    { href: '/healthz', title: 'Liveness', text: 'GET /healthz: the process answers.' },
    { href: '/readyz', title: 'Readiness', text: 'GET /readyz: the store is reachable.' },
  ];
}

export function landingHtml(mode: Mode): string {
  const items = landingLinks(mode)
    .map((l) => `      <li><a href="${escapeHtml(l.href)}">${escapeHtml(l.title)}</a> — ${escapeHtml(l.text)}</li>`)
    .join('\n');
  return page({
    title: 'PayLater reference server',
    styles: [],
    scripts: [],
    body: `    <main>
      <h1>PayLater reference server</h1>
      <p>The merchant payment API (${mode === 'sandbox' ? 'sandbox: test keys' : 'production: live keys'}), enforced from its OpenAPI contract.</p>
      <ul>
${items}
      </ul>
    </main>`,
  });
}

/** Serves the landing page at `GET /` (HEAD too, as express does for GET routes; other methods 405). */
export function mountLanding(app: express.Express, mode: Mode): void {
  const html = landingHtml(mode);
  const router = express.Router();
  router.get('/', (_req, res) => sendHtml(res, html));
  router.use(answerMethodNotAllowed(router));
  app.use(router);
}
