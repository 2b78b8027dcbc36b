/**
 * What `paylater serve` serves beside the API: the landing page (landing.ts), the browser SDK, the hosted checkout page
 * and the `/demo` shop (reference-server/checkout/), and the merchant docs built by
 * `npm run docs` at `/docs`.
 */
import express from 'express';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { assetsDir } from '../lib/package-root.ts';
import { createCheckoutRouter, type CheckoutRouterDeps } from './checkout/router.ts';
import type { MerchantConfigInput, Mode } from './config.ts';
import { mountLanding } from './landing.ts';
import { readOnlyTree } from './http/method-not-allowed.ts';
import { createDashboardRouter } from './dashboard/router.ts';

export const DIST_DIR = assetsDir();

export interface SiteOptions {
  /** The configured merchants: the demo shop uses the first active test merchant of each variant. */
  merchants: readonly MerchantConfigInput[];
  mode: Mode;
  /** Where `npm run build` and `npm run docs` wrote their output (default `<package>/dist`). */
  distDir?: string;
  /** The server's public base URL (`--public-url`) for the demo's absolute links; default its listen address. */
  publicBaseUrl?: string;
  /**
   * True for a local sandbox on the built-in demo merchants (no merchants file, the embedded
   * store): the dashboard lists them to pick from. A shared sandbox (a merchants file, PostgreSQL)
   * leaves it false: one merchant must never see another's key.
   */
  offerDemoMerchants?: boolean;
}

/** The demo merchants of the shop: the first active test-key merchant of each variant (sandbox only). */
export function demoMerchantsOf(
  merchants: readonly MerchantConfigInput[],
  mode: Mode,
): NonNullable<CheckoutRouterDeps['demo']>['merchants'] | null {
  if (mode !== 'sandbox') return null;
  const pick = (variant: 1 | 2) => merchants.find((m) => m.variant === variant && m.apiKey.startsWith('sk_test_') && m.active !== false);
  const v1 = pick(1);
  const v2 = pick(2);
  if (!v1 && !v2) return null;
  return { ...(v1 ? { v1: { apiKey: v1.apiKey } } : {}), ...(v2 ? { v2: { apiKey: v2.apiKey } } : {}) };
}

/** True when `urlPath` (decoded, under `dir`) names a file there, or a folder with an index.html. */
function isFileIn(dir: string, urlPath: string): boolean {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath);
  } catch {
    return false;
  }
  const root = path.resolve(dir);
  const file = path.resolve(root, `.${rel}`);
  if (file !== root && !file.startsWith(root + path.sep)) return false;
  try {
    const st = statSync(file);
    return st.isFile() || (st.isDirectory() && existsSync(path.join(file, 'index.html')));
  } catch {
    return false;
  }
}

export function mountSite(app: express.Express, options: SiteOptions): void {
  const distDir = options.distDir ?? DIST_DIR;
  const demo = demoMerchantsOf(options.merchants, options.mode);
  mountLanding(app, options.mode);
  if (options.mode === 'sandbox') {
    const offered = options.offerDemoMerchants
      ? options.merchants
          .filter((m) => m.apiKey.startsWith('sk_test_') && m.active !== false)
          .map((m) => ({ name: m.name, apiKey: m.apiKey, variant: m.variant }))
      : [];
    app.use(createDashboardRouter(distDir, offered));
  }
  app.use(createCheckoutRouter({ distDir, ...(demo ? { demo: { merchants: demo, publicBaseUrl: options.publicBaseUrl } } : {}) }));

  const docsDir = path.join(distDir, 'docs');
  // The docs are never framed by another site (clickjacking): CSP for current browsers, X-Frame-Options for older ones.
  app.use('/docs', (_req, res, next) => {
    res.set({ 'Content-Security-Policy': "frame-ancestors 'none'", 'X-Frame-Options': 'DENY' });
    next();
  });
  app.get('/docs', (req, res, next) => (req.path === '/docs' ? res.redirect(301, '/docs/') : next()));
  app.use('/docs', (_req, res, next) => {
    if (existsSync(path.join(docsDir, 'index.html'))) {
      next();
      return;
    }
    res.status(404).json({ error: { code: 'ROUTE_NOT_FOUND', message: 'The docs are not built: run `npm run docs`' } });
  });
  // Read-only: another method on a page of the docs answers 405 with Allow: GET, HEAD.
  app.use(
    '/docs',
    readOnlyTree((p) => isFileIn(docsDir, p)),
  );
  app.use(
    '/docs',
    express.static(docsDir, {
      index: 'index.html',
      fallthrough: true,
      setHeaders: (res) => res.set('X-Content-Type-Options', 'nosniff'),
    }),
  );
}
