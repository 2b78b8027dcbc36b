/**
 * `npm run build`: compiles the package's Node code to JavaScript and bundles the browser code.
 *
 * Node code (`tsc -p tsconfig.build.json --noCheck`, ESM with .d.ts types, imports rewritten to .js):
 *   dist/js/<same path as the source>.js|.d.ts   the entries package.json `exports` and `bin` name,
 *                                                  and what they import (no tests, fixtures, bench)
 *   dist/js/generated/v<n>/openapi.yaml, schema.d.ts, dist/js/reference-server/checkout/assets/*.css,
 *   dist/js/reference-server/store/{postgres,sqlite}/migrations/*.sql, store/vendor-reference-unique.sql
 *                                                  copied beside the code that reads them
 *   dist/js/spec/asyncapi.yaml                     the AsyncAPI document bundled into one file
 *                                                  (what conformance/webhooks.ts reads as ../spec/asyncapi.yaml)
 *
 * Browser code (esbuild, no runtime dependencies):
 *   dist/sdk/paylater.js                 the SDK, IIFE, global `Service` (served at /sdk/latest/paylater.js)
 *   dist/sdk/v<version>/paylater.js      the same bytes, versioned (version from package.json)
 *   dist/checkout/checkout-page.js       the hosted checkout page's script
 *   dist/checkout/demo.js                the demo shop's script
 *   dist/dashboard/dashboard.js          the sandbox dashboard's script
 *   dist/dashboard/go-live.js            the dashboard's go-live check page's script
 * Each bundle includes the lib/ modules it imports (money, i18n, checkout protocol). Everything
 * is an external classic script: nothing needs 'unsafe-inline' or 'unsafe-eval'.
 */
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { bundle as redoclyBundle, loadConfig } from '@redocly/openapi-core';
import { build as esbuild } from 'esbuild';
import YAML from 'yaml';
import { ASYNCAPI_FILE, REDOCLY_CONFIG, ROOT } from './lib/paths.ts';

export const DIST_DIR = path.join(ROOT, 'dist');
/** The compiled Node code (tsconfig.build.json `outDir`). */
export const JS_DIST_DIR = path.join(DIST_DIR, 'js');
export const SDK_DIST_DIR = path.join(DIST_DIR, 'sdk');
export const CHECKOUT_DIST_DIR = path.join(DIST_DIR, 'checkout');
export const DASHBOARD_DIST_DIR = path.join(DIST_DIR, 'dashboard');

export async function packageVersion(): Promise<string> {
  const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

export interface BuildReport {
  version: string;
  files: Array<{ file: string; bytes: number }>;
}

async function bundle(entry: string, options: { globalName?: string; version: string }): Promise<string> {
  const result = await esbuild({
    entryPoints: [path.join(ROOT, entry)],
    bundle: true,
    write: false,
    format: 'iife',
    ...(options.globalName ? { globalName: options.globalName } : {}),
    platform: 'browser',
    target: ['es2020'],
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    define: { __SDK_VERSION__: JSON.stringify(options.version) },
    banner: { js: `/* PayLater ${options.globalName ? 'browser SDK' : 'checkout'} v${options.version} */` },
    logLevel: 'silent',
  });
  const out = result.outputFiles[0];
  if (!out) throw new Error(`esbuild produced no output for ${entry}`);
  return out.text;
}

/** Files the compiled code reads beside itself, copied from the sources (paths from ROOT). */
async function assetFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const variant of ['v1', 'v2']) files.push(`generated/${variant}/openapi.yaml`, `generated/${variant}/schema.d.ts`);
  const css = await readdir(path.join(ROOT, 'reference-server/checkout/assets'));
  for (const f of css.filter((n) => n.endsWith('.css'))) files.push(`reference-server/checkout/assets/${f}`);
  files.push('reference-server/dashboard/assets/dashboard.css');
  for (const store of ['postgres', 'sqlite']) {
    const migrations = await readdir(path.join(ROOT, `reference-server/store/${store}/migrations`));
    for (const f of migrations.filter((n) => n.endsWith('.sql'))) files.push(`reference-server/store/${store}/migrations/${f}`);
  }
  files.push('reference-server/store/vendor-reference-unique.sql'); // what both stores' migration 0001 includes
  return files;
}

/** `spec/asyncapi.yaml` with its external `$ref`s bundled in (internal `$ref`s only). */
async function bundledAsyncApi(): Promise<string> {
  const config = await loadConfig({ configPath: REDOCLY_CONFIG });
  const result = await redoclyBundle({ ref: ASYNCAPI_FILE, config, dereference: false });
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length) throw new Error(`bundle ${ASYNCAPI_FILE}: ${errors.map((p) => p.message).join('; ')}`);
  return `# Bundled from spec/asyncapi.yaml by npm run build.\n${YAML.stringify(result.bundle.parsed)}`;
}

/** Compiles the Node code into dist/js (cleaned first) and copies the files it reads. */
export async function buildJs(): Promise<BuildReport['files']> {
  await rm(JS_DIST_DIR, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  try {
    // --noCheck: the output is the same without type-checking (byte for byte), and `npm run
    // typecheck` checks every file, tests included; checking the shipped ones again here was a
    // second whole-program check (16 s of this build's 23 on the 2-core machine, 6.8 with it)
    await promisify(execFile)(process.execPath, [tsc, '-p', path.join(ROOT, 'tsconfig.build.json'), '--noCheck'], { cwd: ROOT });
  } catch (e) {
    const { stdout = '', stderr = '' } = e as { stdout?: string; stderr?: string };
    throw new Error(`tsc -p tsconfig.build.json failed:\n${stdout}${stderr}`, { cause: e });
  }
  // the `paylater` bin runs as a program (`npx paylater` in this checkout; npm sets it on install)
  const { bin } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  for (const file of Object.values(bin)) await chmod(path.join(ROOT, file), 0o755);
  const files: BuildReport['files'] = [];
  for (const rel of await assetFiles()) {
    const to = path.join(JS_DIST_DIR, rel);
    await mkdir(path.dirname(to), { recursive: true });
    await copyFile(path.join(ROOT, rel), to);
  }
  const asyncapi = await bundledAsyncApi();
  const asyncapiFile = path.join(JS_DIST_DIR, 'spec', 'asyncapi.yaml');
  await mkdir(path.dirname(asyncapiFile), { recursive: true });
  await writeFile(asyncapiFile, asyncapi);
  files.push({ file: path.relative(ROOT, asyncapiFile), bytes: Buffer.byteLength(asyncapi) });
  const count = async (dir: string): Promise<number> =>
    (await readdir(dir, { recursive: true, withFileTypes: true })).filter((d) => d.isFile()).length;
  const dirBytes = async (dir: string): Promise<number> => {
    let total = 0;
    for (const d of await readdir(dir, { recursive: true, withFileTypes: true }))
      if (d.isFile()) total += (await stat(path.join(d.parentPath, d.name))).size;
    return total;
  };
  files.push({
    file: `${path.relative(ROOT, JS_DIST_DIR)}/ (${await count(JS_DIST_DIR)} files in all)`,
    bytes: await dirBytes(JS_DIST_DIR),
  });
  return files;
}

/** The browser bundles only (what the checkout tests rebuild; `npm run build` also runs `buildJs`). */
export async function build(): Promise<BuildReport> {
  const version = await packageVersion();
  const sdk = await bundle('sdk/browser/src/global.ts', { globalName: 'Service', version });
  const page = await bundle('reference-server/checkout/page/checkout-page.ts', { version });
  const demo = await bundle('reference-server/checkout/page/demo.ts', { version });
  const dashboard = await bundle('reference-server/dashboard/page/dashboard-page.ts', { version });
  const goLive = await bundle('reference-server/dashboard/page/go-live-page.ts', { version });
  const outputs: Array<[string, string]> = [
    [path.join(SDK_DIST_DIR, 'paylater.js'), sdk],
    [path.join(SDK_DIST_DIR, `v${version}`, 'paylater.js'), sdk],
    [path.join(CHECKOUT_DIST_DIR, 'checkout-page.js'), page],
    [path.join(CHECKOUT_DIST_DIR, 'demo.js'), demo],
    [path.join(DASHBOARD_DIST_DIR, 'dashboard.js'), dashboard],
    [path.join(DASHBOARD_DIST_DIR, 'go-live.js'), goLive],
  ];
  const files: BuildReport['files'] = [];
  for (const [file, text] of outputs) {
    await mkdir(path.dirname(file), { recursive: true });
    // Written aside, then renamed: test files build concurrently while servers read these files.
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, text);
    await rename(tmp, file);
    files.push({ file: path.relative(ROOT, file), bytes: Buffer.byteLength(text) });
  }
  return { version, files };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const js = await buildJs();
  const report = await build();
  for (const f of [...report.files, ...js]) process.stdout.write(`${f.file}  ${f.bytes} bytes\n`);
}
