/**
 * `npm run docs` (and so `npm start`) writes nothing to stderr: a trace or warning there is one a
 * user cannot act on (the Postman step once printed six "Error while resolving allOf schema"
 * traces for type-less `const` members of the webhook events). Built into a folder of its own.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { ROOT } from '../lib/paths.ts';

const run = promisify(execFile);

it('the docs build writes its pages and nothing to stderr', async () => {
  const out = await mkdtemp(path.join(os.tmpdir(), 'paylater-docs-'));
  try {
    const { stdout, stderr } = await run(path.join(ROOT, 'node_modules', '.bin', 'tsx'), ['scripts/docs.ts', out], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(stdout).toMatch(/^docs: \d+ pages in /);
    for (const v of [1, 2]) expect(existsSync(path.join(out, `paylater-v${v}.postman_collection.json`))).toBe(true);
    expect(stderr).toBe('');
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}, 180_000);
