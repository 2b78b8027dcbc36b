/**
 * Figure: B2 GET-by-id requests/s of the reference server ÷ Prism 5.14's mock server on the same
 * bundled document (reported, no target). Reuses the server's rps from `b2-validation-overhead`
 * when that figure ran first, else runs it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundledDocumentPath } from '../../generated/index.ts';
import { b2ValidationOverhead } from './b2-validation-overhead.ts';
import { fmt, load, WARMUP_SECONDS, type Figure } from './tools.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function prismEntry(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const pkg = require.resolve('@stoplight/prism-cli/package.json');
    const entry = path.join(path.dirname(pkg), 'dist', 'index.js');
    return existsSync(entry) ? entry : null;
  } catch {
    return null;
  }
}

async function waitForHttp(url: string, headers: Record<string, string>, ms: number, child: ChildProcess): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    try {
      const r = await fetch(url, { headers });
      await r.arrayBuffer();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`not listening after ${ms} ms`);
}

export const b2VsPrism: Figure = {
  id: 'b2-vs-prism',
  title: 'B2 GET rps, reference server ÷ Prism 5.14 mock, same bundled document',
  target: 'report',
  async run(ctx) {
    const entry = prismEntry();
    if (!entry) return { ratio: null, detail: '', reason: '@stoplight/prism-cli is not installed' };
    const port = 4000 + Math.floor(Math.random() * 2000) + 10_000;
    const stderr: string[] = [];
    const child = spawn(process.execPath, [entry, 'mock', '-h', '127.0.0.1', '-p', String(port), bundledDocumentPath(1)], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    child.stderr.on('data', (d: Buffer) => stderr.push(d.toString()));
    try {
      const path_ = '/api/v1/public/partner/transactions/3f0c9a52-8a7e-4f57-9b43-2f6d3c1e9a10';
      const headers = { 'X-Api-Key': 'sk_test_v1_demo_4f7c2a9e1b3d5f60' };
      try {
        await waitForHttp(`http://127.0.0.1:${port}${path_}`, headers, 60_000, child);
      } catch (e) {
        return { ratio: null, detail: '', reason: `Prism did not start: ${(e as Error).message}; ${stderr.join('').slice(-300)}` };
      }
      await load({ url: `http://127.0.0.1:${port}${path_}`, headers, connections: ctx.connections, duration: WARMUP_SECONDS });
      const prism = await load({
        url: `http://127.0.0.1:${port}${path_}`,
        headers,
        connections: ctx.connections,
        duration: ctx.durationSeconds,
      });
      if (prism.non2xx > 0 || prism.errors > 0)
        return { ratio: null, detail: '', reason: `Prism answered ${prism.non2xx} non-2xx and ${prism.errors} errors` };
      let ours = ctx.shared.get('oursB2Rps') as number | undefined;
      if (ours === undefined) {
        await b2ValidationOverhead.run(ctx);
        ours = ctx.shared.get('oursB2Rps') as number;
      }
      return {
        ratio: ours / prism.requests.average,
        detail: `reference server ${fmt(ours)} req/s (stateful, request + response validation) vs Prism ${fmt(prism.requests.average)} req/s (static example, p50 ${prism.latency.p50} ms)`,
      };
    } finally {
      child.kill('SIGTERM');
    }
  },
};
