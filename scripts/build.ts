/**
 * `npm run build`: bundles the browser code with esbuild (no runtime dependencies).
 *   dist/sdk/paylater.js                 the SDK, IIFE, global `Service` (served at /sdk/latest/paylater.js)
 *   dist/sdk/v<version>/paylater.js      the same bytes, versioned (version from package.json)
 *   dist/checkout/checkout-page.js       the hosted checkout page's script
 *   dist/checkout/demo.js                the demo shop's script
 * Each bundle includes the lib/ modules it imports (money, i18n, checkout protocol). Everything
 * is an external classic script: nothing needs 'unsafe-inline' or 'unsafe-eval'.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { build as esbuild } from 'esbuild';
import { ROOT } from './lib/paths.ts';

export const DIST_DIR = path.join(ROOT, 'dist');
export const SDK_DIST_DIR = path.join(DIST_DIR, 'sdk');
export const CHECKOUT_DIST_DIR = path.join(DIST_DIR, 'checkout');

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

export async function build(): Promise<BuildReport> {
  const version = await packageVersion();
  const sdk = await bundle('sdk/browser/src/global.ts', { globalName: 'Service', version });
  const page = await bundle('reference-server/checkout/page/checkout-page.ts', { version });
  const demo = await bundle('reference-server/checkout/page/demo.ts', { version });
  const outputs: Array<[string, string]> = [
    [path.join(SDK_DIST_DIR, 'paylater.js'), sdk],
    [path.join(SDK_DIST_DIR, `v${version}`, 'paylater.js'), sdk],
    [path.join(CHECKOUT_DIST_DIR, 'checkout-page.js'), page],
    [path.join(CHECKOUT_DIST_DIR, 'demo.js'), demo],
  ];
  const files: BuildReport['files'] = [];
  for (const [file, text] of outputs) {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, text);
    files.push({ file: path.relative(ROOT, file), bytes: Buffer.byteLength(text) });
  }
  return { version, files };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const report = await build();
  for (const f of report.files) process.stdout.write(`${f.file}  ${f.bytes} bytes\n`);
}
