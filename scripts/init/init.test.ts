/**
 * `paylater init server` as a new implementer meets it, in a temporary folder that cannot reach
 * this repository's node_modules: the package packed and installed from its tarball into an
 * empty project (from the local npm cache), `npx paylater init server shop --variant 2`, then in
 * shop/ a plain `npm install` (no lock, nothing edited: the scaffold packed the package into
 * vendor/, since no registry holds it), `npm run typecheck`, `npm start` answers, `paylater conform`
 * against it exits 1 (findings, not a crash) naming a stub, and `npm test` exits 1 listing the stubs.
 * From a checkout (this repository, built): the scaffold packs the checkout, byte for byte the
 * package the newcomer installed, and its Variant 1 project type-checks on that install. A
 * non-empty folder is refused unless --force.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../lib/paths.ts';
import { consumerProject } from '../package/offline-lock.ts';
import { registryRange, runInit } from './server.ts';

const run = promisify(execFile);
const KEY_A = 'sk_test_scaffold_a_000000000001';
const KEY_B = 'sk_test_scaffold_b_000000000002';
/** npm as a newcomer runs it, with the package's Node first on PATH; the cache first, the registry for what it lacks. */
const NPM_INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund'];

let work = '';
/** The empty project the tarball is installed into (where the newcomer runs npx paylater). */
let newcomer = '';
let app = '';
let tarball = '';
let server: ChildProcess | undefined;

const env = (): NodeJS.ProcessEnv => ({
  ...process.env,
  PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
  NO_COLOR: '1',
});

/** A process's exit code and output, without throwing on a non-zero exit. */
async function attempt(file: string, args: string[], cwd: string, timeout = 180_000): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env: env(), timeout, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, out: stdout + stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof err.code === 'number' ? err.code : -1, out: `${err.stdout ?? ''}${err.stderr ?? ''}${err.message}` };
  }
}

beforeAll(async () => {
  if (!existsSync(path.join(ROOT, 'dist/js/server/index.js')) || !existsSync(path.join(ROOT, 'dist/js/scripts/paylater.js')))
    throw new Error('not built: run npm run build (npm test does)');
  work = await mkdtemp(path.join(os.tmpdir(), 'paylater-init-'));
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  tarball = info!.filename;
  // The empty project with the tarball installed (the lock pins what this repository resolved: from the cache alone).
  newcomer = path.join(work, 'newcomer');
  await mkdir(newcomer);
  const project = consumerProject(path.join(ROOT, 'package-lock.json'), { file: path.join(work, tarball), relative: `../${tarball}` }, []);
  await writeFile(path.join(newcomer, 'package.json'), JSON.stringify(project.packageJson, null, 2));
  await writeFile(path.join(newcomer, 'package-lock.json'), JSON.stringify(project.lock, null, 2));
  await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: newcomer, maxBuffer: 16 * 1024 * 1024 });

  const init = await attempt('npx', ['--no-install', 'paylater', 'init', 'server', 'shop', '--variant', '2'], newcomer);
  expect(init.code, init.out).toBe(0);
  app = path.join(newcomer, 'shop');
  const install = await attempt('npm', NPM_INSTALL, app, 400_000);
  expect(install.code, install.out).toBe(0);
}, 600_000);
afterAll(async () => {
  if (server?.pid !== undefined && server.exitCode === null) {
    const exited = new Promise((r) => server!.once('exit', r));
    process.kill(-server.pid, 'SIGTERM');
    await exited;
  }
  if (work) await rm(work, { recursive: true, force: true });
});

describe('paylater init server', () => {
  it('refuses a non-empty folder unless --force', async () => {
    const dir = path.join(work, 'taken');
    await mkdir(dir);
    await writeFile(path.join(dir, 'keep.txt'), 'mine');
    expect(await runInit(['server', dir, '--variant', '2'])).toBe(2);
    expect(existsSync(path.join(dir, 'package.json'))).toBe(false);
    expect(await runInit(['server', dir, '--variant', '2', '--force'])).toBe(0);
    expect(await readFile(path.join(dir, 'keep.txt'), 'utf8')).toBe('mine');
    expect(await readFile(path.join(dir, 'src/handlers.ts'), 'utf8')).toMatch(/V2\.Handlers<Merchant>/);
    expect(await runInit(['server', path.join(work, 'x'), '--variant', '3'])).toBe(2);
  });

  it('recorded the packed package, not a registry version no registry holds', async () => {
    const pkg = JSON.parse(await readFile(path.join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(pkg.dependencies['paylater-contract']).toBe(`file:vendor/${tarball}`);
    expect(existsSync(path.join(app, 'vendor', tarball))).toBe(true);
    expect(existsSync(path.join(app, 'node_modules/paylater-contract/dist/js/server/index.js'))).toBe(true);
  });

  it('`npm run typecheck` passes; a handler answering an undeclared status does not', async () => {
    const ok = await attempt('npm', ['run', 'typecheck'], app);
    expect(ok.code, ok.out).toBe(0);
    const handlers = path.join(app, 'src/handlers.ts');
    const text = await readFile(handlers, 'utf8');
    await writeFile(handlers, text.replace('return { status: 200, body: record };', 'return { status: 299, body: record };'));
    try {
      const wrong = await attempt('npm', ['run', 'typecheck'], app);
      expect(wrong.code).not.toBe(0);
      expect(wrong.out).toMatch(/src\/handlers\.ts\(\d+,\d+\): error TS2322/);
    } finally {
      await writeFile(handlers, text);
    }
  }, 200_000);

  it('starts; paylater conform exits 1 with a finding naming a stub, and npm test fails listing the stubs', async () => {
    server = spawn('npm', ['start'], {
      cwd: app,
      env: { ...process.env, PORT: '0', PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}` },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    server.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    server.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const baseUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start did not listen:\n${out}`)), 90_000);
      server!.stdout!.on('data', () => {
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      server!.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
    });
    const example = await fetch(`${baseUrl}/api/v1/public/partner/transactions/3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10`, {
      headers: { 'X-Api-Key': KEY_A },
    });
    expect([example.status, await example.json()]).toEqual([
      404,
      { error: { code: 'TRANSACTION_NOT_FOUND', message: 'Transaction not found' } },
    ]);

    const conform = await attempt(
      'npx',
      [
        '--no-install',
        'paylater',
        'conform',
        '--base-url',
        baseUrl,
        '--api-key',
        KEY_A,
        '--other-api-key',
        KEY_B,
        '--variant',
        '2',
        '--runs',
        '3',
      ],
      app,
    );
    expect(conform.code, conform.out).toBe(1);
    expect(conform.out).toMatch(/finding 1: createPartnerTransaction/);
    expect(conform.out).toMatch(/answered 501, a status not declared for createPartnerTransaction/);
    expect(conform.out).toMatch(/"code":"NOT_IMPLEMENTED","message":"Operation createPartnerTransaction is not implemented"/);

    const test = await attempt('npm', ['test'], app, 240_000);
    expect(test.code, test.out).toBe(1);
    expect(test.out).toMatch(/- createPartnerTransaction: /);
    expect(test.out).toMatch(/still stubs \(answering 501\): createSession, getTransactionStatusBySessionToken, createPartnerTransaction,/);
    expect(test.out).not.toMatch(/still stubs[^\n]*getPartnerTransaction,/);
  }, 400_000);

  it('from a checkout (this repository, built): packs the checkout into vendor/, the package the newcomer installed; its Variant 1 project type-checks', async () => {
    const dir = path.join(work, 'from-checkout');
    const init = await attempt(
      process.execPath,
      [path.join(ROOT, 'dist/js/scripts/paylater.js'), 'init', 'server', dir, '--variant', '1'],
      work,
    );
    expect(init.code, init.out).toBe(0);
    type Deps = { dependencies: Record<string, string>; devDependencies: Record<string, string> };
    const pkg = JSON.parse(await readFile(path.join(dir, 'package.json'), 'utf8')) as Deps;
    expect(pkg.dependencies['paylater-contract']).toBe(`file:vendor/${tarball}`);
    // `npm pack` is byte-for-byte repeatable: the same tarball and the same dependencies as the
    // newcomer's project, whose `npm install` (in beforeAll) installed it, so that install is this one's
    const digest = async (file: string) =>
      createHash('sha256')
        .update(await readFile(file))
        .digest('hex');
    expect(await digest(path.join(dir, 'vendor', tarball))).toBe(await digest(path.join(app, 'vendor', tarball)));
    const shop = JSON.parse(await readFile(path.join(app, 'package.json'), 'utf8')) as Deps;
    expect([pkg.dependencies, pkg.devDependencies]).toEqual([shop.dependencies, shop.devDependencies]);
    await symlink(path.join(app, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    const ok = await attempt('npm', ['run', 'typecheck'], dir);
    expect(ok.code, ok.out).toBe(0);
  }, 600_000);

  it('depends on the registry version only when the package came from a registry (its hidden lockfile says so)', async () => {
    const root = path.join(work, 'registry-project', 'node_modules', 'paylater-contract');
    await mkdir(root, { recursive: true });
    const hidden = path.join(work, 'registry-project', 'node_modules', '.package-lock.json');
    const lock = (resolved: string) => JSON.stringify({ packages: { 'node_modules/paylater-contract': { version: '0.1.0', resolved } } });
    await writeFile(hidden, lock('https://registry.npmjs.org/paylater-contract/-/paylater-contract-0.1.0.tgz'));
    expect(registryRange(root, '0.1.0')).toBe('^0.1.0');
    await writeFile(hidden, lock('file:../paylater-contract-0.1.0.tgz'));
    expect(registryRange(root, '0.1.0')).toBe(null);
    expect(registryRange(ROOT, '0.1.0')).toBe(null);
    expect(registryRange(path.join(newcomer, 'node_modules', 'paylater-contract'), '0.1.0')).toBe(null);
  });
});
