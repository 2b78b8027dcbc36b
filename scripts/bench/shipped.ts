/**
 * The package as it ships. A figure that times our own server, router or proxy runs the compiled
 * JavaScript (`dist/js`, the `tsc -p tsconfig.build.json` output of `npm run build`: what
 * `paylater serve` and `paylater proxy` run once installed), not the TypeScript sources through
 * tsx. tsx's transform names every function it makes at run time (a `__name(fn, "…")` call, a
 * property definition per closure), so a per-request closure costs more under it than in the
 * package; the bare express baseline, plain JavaScript, pays nothing for it.
 *
 * The code is compiled once per bench process, at the first figure that asks for it, from the
 * checkout as it is, so the figure times the sources beside it.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildJs, JS_DIST_DIR } from '../build.ts';

let built: Promise<void> | null = null;

/** Compiles the Node code into `dist/js` (once per process). */
export function buildShipped(): Promise<void> {
  return (built ??= buildJs().then(() => undefined));
}

/**
 * The compiled module of `source` (a path from the repository root, e.g.
 * `reference-server/testing.ts`), typed as the source: `shipped<typeof import('…')>('…')`.
 */
export async function shipped<M>(source: string): Promise<M> {
  await buildShipped();
  return importBuilt<M>(source);
}

/** The same, compiled by another process already (a figure's child process: its parent ran `buildShipped`). */
export async function importBuilt<M>(source: string): Promise<M> {
  return (await import(pathToFileURL(path.join(JS_DIST_DIR, source.replace(/\.ts$/, '.js'))).href)) as M;
}

/** The `paylater` command as installed (package.json `bin`), for figures that run it in a process of its own. */
export async function shippedBin(): Promise<string> {
  await buildShipped();
  return path.join(JS_DIST_DIR, 'scripts', 'paylater.js');
}
