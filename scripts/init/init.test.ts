/**
 * `paylater init server` as a new implementer meets it: the scaffold, installed offline from the
 * packed tarball, type-checks, starts, and `paylater conform` against it exits 1 (findings, not a
 * crash or a setup error) naming an operation still a stub; its `npm test` fails listing the stubs.
 * A non-empty folder is refused unless --force.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../lib/paths.ts';
import { consumerProject } from '../package/offline-lock.ts';
import { runInit } from './server.ts';

const run = promisify(execFile);
const KEY_A = 'sk_test_scaffold_a_000000000001';
const KEY_B = 'sk_test_scaffold_b_000000000002';

let work = '';
let app = '';
let server: ChildProcess | undefined;

/** A process's exit code and output, without throwing on a non-zero exit. */
async function attempt(file: string, args: string[], cwd: string, timeout = 180_000): Promise<{ code: number; out: string }> {
  const env = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`, NO_COLOR: '1' };
  try {
    const { stdout, stderr } = await run(file, args, { cwd, env, timeout, maxBuffer: 16 * 1024 * 1024 });
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
  app = path.join(work, 'my-server');
  expect(await runInit(['server', app, '--variant', '1'])).toBe(0);
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  });
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  // The scaffold's own package.json, pinned to what this repository's lock resolved, installed from the cache alone.
  const scaffold = JSON.parse(await readFile(path.join(app, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    devDependencies: Record<string, string>;
  };
  const names = [...Object.keys(scaffold.dependencies), ...Object.keys(scaffold.devDependencies)].filter((n) => n !== 'paylater-contract');
  const project = consumerProject(
    path.join(ROOT, 'package-lock.json'),
    { file: path.join(work, info!.filename), relative: `../${info!.filename}` },
    names,
  );
  const root = project.lock.packages['']!;
  const pinned = root.devDependencies as Record<string, string>;
  const pkg = { ...scaffold, dependencies: {} as Record<string, string>, devDependencies: {} as Record<string, string> };
  for (const n of Object.keys(scaffold.dependencies))
    pkg.dependencies[n] = n === 'paylater-contract' ? `file:../${info!.filename}` : pinned[n]!;
  for (const n of Object.keys(scaffold.devDependencies)) pkg.devDependencies[n] = pinned[n]!;
  project.lock.packages[''] = { name: 'my-server', version: '0.1.0', dependencies: pkg.dependencies, devDependencies: pkg.devDependencies };
  await writeFile(path.join(app, 'package.json'), JSON.stringify(pkg, null, 2));
  await writeFile(path.join(app, 'package-lock.json'), JSON.stringify({ ...project.lock, name: 'my-server', version: '0.1.0' }, null, 2));
  await run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: app, maxBuffer: 16 * 1024 * 1024 });
}, 400_000);

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

  it('type-checks against the installed package; a handler answering an undeclared status does not', async () => {
    const tsc = path.join(app, 'node_modules/typescript/bin/tsc');
    const ok = await attempt(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], app);
    expect(ok.code, ok.out).toBe(0);
    const handlers = path.join(app, 'src/handlers.ts');
    const text = await readFile(handlers, 'utf8');
    await writeFile(handlers, text.replace('return { status: 200, body: record };', 'return { status: 299, body: record };'));
    try {
      const wrong = await attempt(process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], app);
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
        '1',
        '--runs',
        '3',
      ],
      app,
    );
    expect(conform.code, conform.out).toBe(1);
    expect(conform.out).toMatch(/finding 1: verifyTransaction/);
    expect(conform.out).toMatch(/answered 501, a status not declared for verifyTransaction/);
    expect(conform.out).toMatch(/"code":"NOT_IMPLEMENTED","message":"Operation verifyTransaction is not implemented"/);

    const test = await attempt('npm', ['test'], app, 240_000);
    expect(test.code, test.out).not.toBe(0);
    expect(test.out).toMatch(/- verifyTransaction: /);
    expect(test.out).toMatch(
      /still stubs \(answering 501\): createSession, getTransactionStatusBySessionToken, verifyTransaction, createPartnerTransaction,/,
    );
    expect(test.out).not.toMatch(/still stubs[^\n]*getPartnerTransaction,/);
  }, 400_000);
});
