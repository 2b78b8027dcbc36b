/**
 * `createCheckoutRouter(deps)`: the browser side of family A, mounted on the reference server
 * (`createApp({ ..., mount: (app) => app.use(createCheckoutRouter(deps)) })`).
 *
 *   GET /sdk/latest/paylater.js, /sdk/v<version>/paylater.js   the browser SDK (from dist/, `npm run build`)
 *   GET /checkout/:paymentIntentId                             the hosted checkout page
 *   GET /demo, /demo/v1, /demo/v2 (+ their backend routes)     a demo merchant shop per variant
 *
 * A path served here called with another method answers 405 with `Allow`, as the API does.
 * Every page is served with a strict CSP (scripts and styles as files, nothing inline). The
 * hosted page receives the session token in the URL fragment, never in a query string (see
 * page/checkout-page.ts).
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import { escapeHtml } from '../../lib/html.ts';
import { assetsDir } from '../../lib/package-root.ts';
import { mountDemoShop, type DemoShopOptions } from './demo-shop.ts';
import { page, STRICT_CSP } from './html.ts';
import { MISSING_BUILD, notFoundJson, sendFile, sendHtml } from './respond.ts';
import { answerMethodNotAllowed } from '../http/method-not-allowed.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const VERSION_SEGMENT = /^v\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

export interface CheckoutRouterDeps {
  /** Directory holding the `npm run build` output (default `<package>/dist`). */
  distDir?: string;
  /** The demo shop; without it `/demo` answers 404. */
  demo?: DemoShopOptions;
}

export function createCheckoutRouter(deps: CheckoutRouterDeps = {}): Router {
  const router = express.Router();
  const distDir = deps.distDir ?? assetsDir();

  // ------------------------------------------------------------------ SDK
  router.get('/sdk/latest/paylater.js', (_req, res) =>
    sendFile(
      res,
      path.join(distDir, 'sdk', 'paylater.js'),
      'application/javascript; charset=utf-8',
      'public, max-age=300',
      `The SDK is not built: run \`npm run build\`.`,
    ),
  );
  router.get('/sdk/:version/paylater.js', async (req, res) => {
    const version = String(req.params.version);
    if (!VERSION_SEGMENT.test(version))
      return notFoundJson(res, `Unknown SDK version ${version}; use /sdk/latest/paylater.js or /sdk/v<semver>/paylater.js`);
    const file = path.join(distDir, 'sdk', version, 'paylater.js');
    const exists = await stat(file).then(
      () => true,
      () => false,
    );
    if (!exists) {
      const latest = await stat(path.join(distDir, 'sdk', 'paylater.js')).then(
        () => true,
        () => false,
      );
      return notFoundJson(
        res,
        latest ? `SDK version ${version} is not available on this server` : 'The SDK is not built: run `npm run build`.',
      );
    }
    return sendFile(res, file, 'application/javascript; charset=utf-8', 'public, max-age=31536000, immutable', MISSING_BUILD);
  });

  // ------------------------------------------------------------------ hosted checkout page
  router.get('/checkout/assets/checkout.css', (_req, res) =>
    sendFile(res, path.join(HERE, 'assets', 'checkout.css'), 'text/css; charset=utf-8', 'public, max-age=300', 'missing stylesheet'),
  );
  router.get('/checkout/assets/checkout-page.js', (_req, res) =>
    sendFile(
      res,
      path.join(distDir, 'checkout', 'checkout-page.js'),
      'application/javascript; charset=utf-8',
      'public, max-age=300',
      MISSING_BUILD,
    ),
  );
  router.get('/checkout/:paymentIntentId', (req, res) => {
    const id = String(req.params.paymentIntentId);
    if (!UUID.test(id)) {
      return sendHtml(
        res,
        page({
          title: 'Checkout not found',
          styles: ['/checkout/assets/checkout.css'],
          scripts: [],
          body: '<main><p class="notice notice-error">This checkout link is not valid.</p></main>',
        }),
        STRICT_CSP,
        404,
      );
    }
    sendHtml(
      res,
      page({
        title: 'PayLater checkout',
        styles: ['/checkout/assets/checkout.css'],
        scripts: ['/checkout/assets/checkout-page.js'],
        body: `<main>
  <p class="brand">PayLater</p>
  <div id="app" data-payment-intent-id="${escapeHtml(id)}"><p class="notice">Loading…</p></div>
  <noscript><p>This page needs JavaScript.</p></noscript>
</main>`,
      }),
    );
  });

  if (deps.demo) mountDemoShop(router, deps.demo, distDir);
  else router.all(['/demo', '/demo/*rest'], (_req, res) => notFoundJson(res, 'The demo shop is not enabled on this server'));
  router.use(answerMethodNotAllowed(router));
  return router;
}
