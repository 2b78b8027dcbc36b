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

/** What each of the three users does next: a card each (the docs' `.cards`), links and commands. */
interface Card {
  title: string;
  lead: string;
  links: LandingLink[];
  commands?: string[];
}

/** The links of the landing page in `mode` (the demo shop and the dashboard take test keys: sandbox only). */
export function landingLinks(mode: Mode): LandingLink[] {
  return cards(mode).flatMap((c) => c.links);
}

function cards(mode: Mode): Card[] {
  return [
    {
      title: 'Merchants: take a payment',
      lead:
        mode === 'sandbox'
          ? 'Pay a demo order, watch it in the dashboard, then read how your shop does the same.'
          : 'Read how your shop creates a session, opens the hosted page and verifies the payment.',
      links: [
        ...(mode === 'sandbox'
          ? [
              { href: '/demo', title: 'Demo shop', text: 'a shop paying with the browser SDK and the hosted checkout page' },
              { href: '/dashboard', title: 'Dashboard', text: 'your test transactions, their SMS and webhooks, the sandbox actions' },
            ]
          : []),
        { href: '/docs/merchants.html', title: 'Merchant docs', text: 'guides, the API reference of both variants, the errors' },
      ],
    },
    {
      title: 'Implementers: write your own server',
      lead: 'Scaffold a typed server on the contract router, then let the conformance suite name what is missing.',
      links: [],
      commands: [
        'npx paylater init server shop --variant 2',
        'cd shop && npm install',
        'npm start   # then: npm test',
        'npx paylater conform --help',
      ],
    },
    {
      title: 'API designers: change the contract',
      lead: 'The sources in spec/ (OpenAPI 3.1 per variant, AsyncAPI 3 for webhooks) are the one truth; lint and the diff gate guard every edit.',
      links: [{ href: '/docs/decisions.html', title: 'Decisions', text: 'every point the original interface left open' }],
      commands: ['npm run generate  # spec/ → generated/', 'npm run lint      # the gate', 'npm run diff      # the change, rated'],
    },
  ];
}

const PROBES: LandingLink[] = [
  { href: '/healthz', title: '/healthz', text: 'the process answers' },
  { href: '/readyz', title: '/readyz', text: 'the store is reachable' },
];

function cardHtml(c: Card): string {
  const links = c.links.map((l) => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.title)}</a>: ${escapeHtml(l.text)}</li>`).join('');
  const commands = c.commands?.length ? `<pre><code>${c.commands.map(escapeHtml).join('\n')}</code></pre>` : '';
  return `<div class="card"><h3>${escapeHtml(c.title)}</h3>
<p>${escapeHtml(c.lead)}</p>${links ? `<ul>${links}</ul>` : ''}${commands}</div>`;
}

/** The page: the docs' stylesheet and layout (`body.docs`, `.site-nav`, `main.page`, `.cards`), one card per user. */
export function landingHtml(mode: Mode): string {
  const probes = PROBES.map((l) => `<a href="${escapeHtml(l.href)}">${escapeHtml(l.title)}</a> (${escapeHtml(l.text)})`).join(' · ');
  return page({
    title: 'PayLater reference server',
    styles: ['/docs/style.css'],
    scripts: [],
    bodyClass: 'docs',
    body: `<nav class="site-nav" aria-label="Site"><a class="brand" href="/">PayLater</a><ul><li><a href="/docs/">Docs</a></li>${
      mode === 'sandbox' ? '<li><a href="/demo">Demo shop</a></li><li><a href="/dashboard">Dashboard</a></li>' : ''
    }</ul></nav>
<main class="page">
<h1>PayLater reference server</h1>
<p>The merchant payment API (${mode === 'sandbox' ? 'sandbox: test keys' : 'production: live keys'}), enforced from its OpenAPI contract. Where to start:</p>
<div class="cards">${cards(mode).map(cardHtml).join('\n')}</div>
<p class="muted">Service probes: ${probes}</p>
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
