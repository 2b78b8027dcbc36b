/**
 * The package as a user gets it: `npm pack` (what `npm test` just built), installed into a fresh
 * project from the local npm cache alone (`npm ci --offline`, lock from offline-lock.ts), then
 * used the ways the README and docs/ say, on Node 24 (the pinned one) and on Node 22 (the oldest the
 * `engines` field allows, from scripts/package/node22):
 * - a plain JavaScript ESM file imports the client and the webhook verifier and talks to a
 *   running `npx paylater serve`, whose webhook it receives and verifies;
 * - a plain JavaScript server on `paylater-contract/server` answers (a handler, 501 stubs, 401, 405);
 * - a TypeScript file type-checks against the shipped types (`nodenext` and `bundler`), and a
 *   wrong one does not (once, on Node 24: tsc's verdict does not depend on the Node that runs it);
 * - `npx paylater serve --memory --port 0` serves /docs, /sdk/latest/…, /demo and the hosted page's assets;
 * - `npx paylater conform` passes against it, webhooks included;
 * - the vitest example of docs/implementers.md (runConformance + startServer) passes.
 * One tarball and one install are shared by every case.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../lib/free-port.ts';
import { ROOT } from '../lib/paths.ts';
import { consumerProject } from './offline-lock.ts';

const run = promisify(execFile);
const NODE22 = path.join(ROOT, 'scripts/package/node22/node_modules/node/bin/node');
const WHSEC_CONFORM = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const WHSEC_CLIENT = 'whsec_c2VjcmV0LWZvci10aGUtY29uc3VtZXItdGVzdA==';
const KEYS = { a: 'sk_test_v1_consumer_a_000000000001', b: 'sk_test_v1_consumer_b_000000000002', v2: 'sk_test_v2_consumer_c_000000000003' };
/** What the package needs built before packing (`npm test` builds it first: build, docs). */
const BUILT = [
  'dist/js/scripts/paylater.js',
  'dist/js/spec/asyncapi.yaml',
  'dist/sdk/paylater.js',
  'dist/checkout/checkout-page.js',
  'dist/docs/index.html',
];

let work = '';
let app = '';
let version = '';

/** PATH with `node`'s folder first, so `npx`, npm and the `paylater` bin all run on that Node. */
function envFor(node: string): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${path.dirname(node)}${path.delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' };
}

/** `npx paylater serve …` in the consumer project; resolves with its base URL once it listens. */
async function serve(node: string, args: string[]): Promise<{ baseUrl: string; child: ChildProcess; output: () => string }> {
  // Its own process group: npx runs the bin in a child of its own and does not pass SIGTERM on,
  // so `stop` signals the whole group (else every run left its servers behind).
  const child = spawn('npx', ['--no-install', 'paylater', 'serve', ...args], {
    cwd: app,
    env: envFor(node),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`paylater serve did not start:\n${out}`)), 60_000);
    child.stdout.on('data', () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`paylater serve exited with ${code}:\n${out}`));
    });
  });
  return { baseUrl, child, output: () => out };
}

/** True while a process of group `pgid` is alive (a zombie, exited but not yet reaped, is not). Linux's /proc. */
function groupAlive(pgid: number): boolean {
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${d}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid && state !== 'Z') return true;
  }
  return false;
}

/**
 * Stops `npx paylater serve` and the server it started (its process group); resolves once no
 * process of the group is left. Not once the server stops answering: it closes its listener
 * first, then its store, whose files in `data/` change until it exits (a removal of the folder
 * meanwhile failed with ENOTEMPTY).
 */
async function stop(server: { child: ChildProcess; baseUrl: string }): Promise<void> {
  const { child } = server;
  const pgid = child.pid;
  if (pgid === undefined) return;
  if (child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-pgid, 'SIGTERM');
    await exited;
  }
  const until = Date.now() + 15_000;
  while (groupAlive(pgid)) {
    if (Date.now() > until) throw new Error(`the server at ${server.baseUrl} is still running 15 s after its npx exited`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // and nothing answers there any more
  await expect(fetch(`${server.baseUrl}/healthz`)).rejects.toThrow();
}

/** A process's exit code and output, without throwing on a non-zero exit. */
async function attempt(file: string, args: string[], node: string, timeout = 180_000): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd: app, env: envFor(node), timeout, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof err.code === 'number' ? err.code : -1, out: `${err.stdout ?? ''}${err.stderr ?? ''}${err.message}` };
  }
}

const CLIENT_MJS = `// A merchant backend in plain JavaScript: the typed client and the webhook verifier.
import { createServer } from 'node:http';
import { createPayLaterClientV2, PayLaterApiError } from 'paylater-contract/sdk/client';
import { verifyWebhook } from 'paylater-contract/sdk/webhooks';

const [baseUrl, apiKey, hookPort, secret] = process.argv.slice(2);
let hooks;
const received = new Promise((resolve, reject) => {
  hooks = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(204).end();
      try {
        resolve(verifyWebhook(Buffer.concat(chunks), req.headers, secret));
      } catch (e) {
        reject(e);
      }
    });
  }).listen(Number(hookPort), '127.0.0.1');
});
const paylater = createPayLaterClientV2({ baseUrl, apiKey });
const created = await paylater.createPartnerTransaction({
  customerPhone: '212612345678', total: 1299.5, currency: 'MAD',
  items: [{ name: 'Phone', quantity: 1, unitPrice: 1299.5 }], vendorReference: 'consumer-order-1',
});
const cancelled = await paylater.cancelPartnerTransactionByVendorReference('consumer-order-1');
let again = null;
try {
  await paylater.cancelPartnerTransactionByVendorReference('consumer-order-1');
} catch (e) {
  again = e instanceof PayLaterApiError ? e.code : String(e);
}
const event = await received;
hooks.close();
console.log(JSON.stringify({ created: created.status, cancelled: cancelled.status, again, event: event.event, sameId: event.data.id === created.id }));
`;

const SERVER_MJS = `// A server in plain JavaScript on the contract router: one handler, the rest answer 501.
import express from 'express';
import { ApiError, createContractRouter, routeNotFound } from 'paylater-contract/server';

const app = express();
app.use(
  createContractRouter({
    variant: 2,
    handlers: { getHealth: () => ({ status: 200, body: { status: 'ok' } }) },
    authenticate: (req, op) => {
      if (req.get(op.auth.header) !== 'sk_test_js') throw new ApiError('INVALID_API_KEY', 'Invalid API key');
      return { id: 'm' };
    },
  }),
);
app.use(routeNotFound);
const server = app.listen(0, '127.0.0.1', async () => {
  const base = 'http://127.0.0.1:' + server.address().port;
  const status = async (p, init) => (await fetch(base + p, init)).status;
  const tx = '/api/v1/public/partner/transactions/3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10';
  const out = {
    health: await status('/healthz'),
    stub: await status(tx, { headers: { 'X-Api-Key': 'sk_test_js' } }),
    unauthenticated: await status(tx),
    method: await status(tx, { method: 'DELETE' }),
    unknown: await status('/nope'),
  };
  server.close();
  console.log(JSON.stringify(out));
});
`;

const CONSUMER_TS = `import { createPayLaterClientV1, createPayLaterClientV2, PayLaterApiError, type ErrorCode } from 'paylater-contract/sdk/client';
import { verifyWebhook, WebhookVerificationError } from 'paylater-contract/sdk/webhooks';
import { runConformance, type ConformanceResult, type Finding } from 'paylater-contract/conformance';
import { createApp, startServer, type RunningServer } from 'paylater-contract/reference-server';
import { errorCatalog, type V2 } from 'paylater-contract/generated';
import { ApiError, createContractRouter, notImplemented, type V2 as Server2 } from 'paylater-contract/server';

const handlers: Partial<Server2.Handlers<{ id: string }>> = {
  getHealth: () => ({ status: 200, body: { status: 'ok' } }),
  getPartnerTransaction: ({ params }) => ({ status: 404, body: { error: { code: 'TRANSACTION_NOT_FOUND', message: params.transactionId } } }),
  createSession: notImplemented,
};
export const router = createContractRouter<2, { id: string }>({
  variant: 2,
  handlers,
  authenticate: (req, op) => {
    if (!req.get(op.auth!.header)) throw new ApiError('INVALID_API_KEY', 'Invalid API key');
    return { id: 'm' };
  },
});

export async function check(server: RunningServer): Promise<number> {
  const v2 = createPayLaterClientV2({ baseUrl: server.baseUrl, apiKey: server.merchants[0]!.apiKey });
  const session = await v2.createSession({ total: '10.00', currency: 'MAD', items: [{ id: 'a', name: 'A', price: 10, quantity: 1 }] });
  const token: string = session.session_token;
  const tx: V2.components['schemas']['PartnerTransaction'] = await v2.getPartnerTransaction('id');
  const event = verifyWebhook('{}', {}, 'whsec_x');
  const approvedAt: string | undefined = event.event === 'transaction.approved' ? event.data.approvedAt : undefined;
  const result: ConformanceResult = await runConformance({ baseUrl: server.baseUrl, apiKey: 'a', otherApiKey: 'b', variant: 2, profile: 'sandbox' });
  const findings: Finding[] = result.findings;
  const code: ErrorCode | undefined = undefined;
  void [createPayLaterClientV1, PayLaterApiError, WebhookVerificationError, createApp, startServer, errorCatalog, token, tx, approvedAt, code];
  return findings.length + result.seed + result.coverage.transitions.missing.length + result.exitCode;
}
`;

/** Each line a type error the shipped types must catch (if they were \`any\`, none would be). */
const WRONG_TS = `import { createPayLaterClientV2 } from 'paylater-contract/sdk/client';
import { runConformance } from 'paylater-contract/conformance';
import { startServer } from 'paylater-contract/reference-server';
import type { V2 } from 'paylater-contract/server';

const v2 = createPayLaterClientV2({ baseUrl: 'http://127.0.0.1:1', apiKey: 'k' });
export const a: number = (await v2.createSession({ total: '1.00', currency: 'MAD', items: [] })).session_token;
export const b: string = (await runConformance({ baseUrl: 'x', apiKey: 'a', otherApiKey: 'b' })).findings;
export const c: number = (await startServer({ port: 'x' })).baseUrl;
export const d: V2.Handler<'getHealth'> = () => ({ status: 418, body: { status: 'ok' } });
`;

function tsconfig(resolution: 'nodenext' | 'bundler', files: string[]): string {
  const module = resolution === 'nodenext' ? 'nodenext' : 'esnext';
  return JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module,
      moduleResolution: resolution,
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
    },
    files,
  });
}

/** The vitest example for implementers (the ```ts block starting `// conformance.test.ts` of docs/implementers.md). */
async function implementersVitestExample(): Promise<string> {
  const readme = await readFile(path.join(ROOT, 'docs', 'implementers.md'), 'utf8');
  const block = /```ts\n(\/\/ conformance\.test\.ts\n[\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('docs/implementers.md: no ```ts block starting with // conformance.test.ts');
  return block[1]!;
}

beforeAll(async () => {
  const missing = BUILT.filter((f) => !existsSync(path.join(ROOT, f)));
  if (missing.length) throw new Error(`not built: ${missing.join(', ')}; run npm run build && npm run docs (npm test does)`);
  work = await mkdtemp(path.join(os.tmpdir(), 'paylater-consumer-'));
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string; version: string }>;
  version = info!.version;
  app = path.join(work, 'app');
  const tarball = path.join(work, info!.filename);
  const project = consumerProject(path.join(ROOT, 'package-lock.json'), { file: tarball, relative: `../${info!.filename}` }, [
    'typescript',
    '@types/node',
    '@types/express',
    'express',
    'vitest',
  ]);
  await run('mkdir', [app]);
  await writeFile(path.join(app, 'package.json'), JSON.stringify(project.packageJson, null, 2));
  await writeFile(path.join(app, 'package-lock.json'), JSON.stringify(project.lock, null, 2));
  await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 16 * 1024 * 1024 });
  await writeFile(path.join(app, 'client.mjs'), CLIENT_MJS);
  await writeFile(path.join(app, 'server.mjs'), SERVER_MJS);
  await writeFile(path.join(app, 'consumer.ts'), CONSUMER_TS);
  await writeFile(path.join(app, 'wrong.ts'), WRONG_TS);
  // nodenext: the right file and the wrong one in one program (the errors name their file); bundler: the right one
  await writeFile(path.join(app, 'tsconfig.nodenext.json'), tsconfig('nodenext', ['consumer.ts', 'wrong.ts']));
  await writeFile(path.join(app, 'tsconfig.bundler.json'), tsconfig('bundler', ['consumer.ts']));
  await writeFile(path.join(app, 'conformance.test.ts'), await implementersVitestExample());
}, 300_000);

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/**
 * The two Nodes' blocks run side by side (each its own servers, ports and merchants file), their
 * cases one after another within a block.
 */
const SEQUENTIAL = { concurrent: false } as const;

describe.each([
  { name: 'Node 24', node: process.execPath, major: 24 },
  { name: 'Node 22', node: NODE22, major: 22 },
])('the installed package on $name', { concurrent: true }, ({ node, major }) => {
  it('runs on that Node', SEQUENTIAL, async () => {
    const { stdout } = await run(node, ['--version']);
    expect(stdout.trim()).toMatch(new RegExp(`^v${major}\\.`));
  });

  it(
    'serves the docs, the SDK and the demo; its client, verifier and `paylater conform` work against it',
    { ...SEQUENTIAL, timeout: 300_000 },
    async () => {
      const [hookPort, conformHookPort] = [await freePort(), await freePort()];
      const merchants = [
        {
          name: 'Shop A',
          storeName: 'Shop A',
          apiKey: KEYS.a,
          variant: 1,
          webhookUrl: `http://127.0.0.1:${conformHookPort}/hooks`,
          webhookSecret: WHSEC_CONFORM,
        },
        { name: 'Shop B', storeName: 'Shop B', apiKey: KEYS.b, variant: 1 },
        {
          name: 'Shop C',
          storeName: 'Shop C',
          apiKey: KEYS.v2,
          variant: 2,
          webhookUrl: `http://127.0.0.1:${hookPort}/hooks`,
          webhookSecret: WHSEC_CLIENT,
        },
      ];
      await writeFile(path.join(app, `merchants-${major}.json`), JSON.stringify(merchants));
      // --no-auth-throttle (serve's help: for a sandbox that `paylater conform` checks): every probe
      // family runs on every operation, so a run sends dozens of wrong credentials; the throttle
      // itself is conformance/throttle-control.test.ts's
      const server = await serve(node, ['--memory', '--port', '0', '--merchants', `merchants-${major}.json`, '--no-auth-throttle']);
      try {
        const get = async (p: string) => {
          const res = await fetch(server.baseUrl + p);
          return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text() };
        };
        const docs = await get('/docs/');
        expect(docs.status).toBe(200);
        expect(docs.type).toMatch(/text\/html/);
        for (const p of ['/sdk/latest/paylater.js', `/sdk/v${version}/paylater.js`, '/checkout/assets/checkout-page.js']) {
          const r = await get(p);
          expect(r.status, p).toBe(200);
          expect(r.type, p).toMatch(/javascript/);
        }
        for (const p of ['/checkout/assets/checkout.css', '/demo/assets/demo.css']) expect((await get(p)).status, p).toBe(200);
        const demo = await get('/demo');
        expect(demo.status).toBe(200);
        expect(demo.body).toContain('Demo merchant shop');
        expect((await get('/demo/v2')).status).toBe(200);

        const client = await attempt(node, ['client.mjs', server.baseUrl, KEYS.v2, String(hookPort), WHSEC_CLIENT], node, 60_000);
        expect(client.code, client.out).toBe(0);
        expect(JSON.parse(client.out.trim().split('\n').pop()!)).toEqual({
          created: 'PENDING',
          cancelled: 'CANCELED',
          again: 'TRANSACTION_NOT_PENDING',
          event: 'transaction.cancelled',
          sameId: true,
        });

        const conform = await attempt(
          'npx',
          [
            '--no-install',
            'paylater',
            'conform',
            '--base-url',
            server.baseUrl,
            '--api-key',
            KEYS.a,
            '--other-api-key',
            KEYS.b,
            '--profile',
            'sandbox',
            '--runs',
            '10',
            '--webhook-port',
            String(conformHookPort),
            '--webhook-secret',
            WHSEC_CONFORM,
          ],
          node,
        );
        expect(conform.code, conform.out).toBe(0);
        expect(conform.out).toMatch(/; 0 finding\(s\)/);
        expect(conform.out).toMatch(/webhooks: [1-9]\d* deliveries received/);

        // The contract diff needs the sources and their git history: it says so instead of failing on an import.
        const diff = await attempt('npx', ['--no-install', 'paylater', 'diff'], node, 60_000);
        expect(diff.code, diff.out).toBe(2);
        expect(diff.out).toMatch(/run it in a checkout of the paylater-contract repository/);
      } finally {
        await stop(server);
      }
    },
  );

  it(
    'serves a plain JavaScript server on paylater-contract/server: a handler, 501 stubs, 401, 405, the next route',
    { ...SEQUENTIAL, timeout: 180_000 },
    async () => {
      const r = await attempt(node, ['server.mjs'], node, 120_000);
      expect(r.code, r.out).toBe(0);
      expect(JSON.parse(r.out.trim().split('\n').pop()!)).toEqual({
        health: 200,
        stub: 501,
        unauthenticated: 401,
        method: 405,
        unknown: 404,
      });
    },
  );

  it(
    'runs the vitest example of docs/implementers.md (runConformance against startServer)',
    { ...SEQUENTIAL, timeout: 300_000 },
    async () => {
      const r = await attempt(path.join(app, 'node_modules/.bin/vitest'), ['run', 'conformance.test.ts'], node, 240_000);
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/1 passed/);
    },
  );
});

// Once, on the pinned Node: tsc's verdict on the shipped types does not depend on the Node that runs it.
it('type-checks a TypeScript consumer with moduleResolution nodenext and bundler; a wrong one fails', { timeout: 300_000 }, async () => {
  const node = process.execPath;
  const tsc = path.join(app, 'node_modules/typescript/bin/tsc');
  const [nodenext, bundler] = await Promise.all([
    attempt(node, [tsc, '-p', 'tsconfig.nodenext.json', '--pretty', 'false'], node),
    attempt(node, [tsc, '-p', 'tsconfig.bundler.json'], node),
  ]);
  expect(bundler.code, bundler.out).toBe(0);
  // every error of the nodenext program is one of the wrong file's four lines: none in consumer.ts
  expect(nodenext.code).not.toBe(0);
  const errors = nodenext.out.split('\n').filter((l) => /error TS\d+/.test(l));
  expect([...new Set(errors.map((l) => /^(\S+?)\((\d+),/.exec(l)?.slice(1).join(':')))].sort(), nodenext.out).toEqual([
    'wrong.ts:10',
    'wrong.ts:7',
    'wrong.ts:8',
    'wrong.ts:9',
  ]);
});

it('`paylater serve` without --data writes data/paylater.db in the working directory, not in the package', async () => {
  const server = await serve(process.execPath, ['--port', '0']);
  try {
    expect(server.output()).toContain(`Data: ${path.join(app, 'data', 'paylater.db')}`);
    expect(existsSync(path.join(app, 'data', 'paylater.db'))).toBe(true);
    expect(existsSync(path.join(app, 'node_modules', 'paylater-contract', 'data'))).toBe(false);
  } finally {
    await stop(server);
  }
}, 120_000);
