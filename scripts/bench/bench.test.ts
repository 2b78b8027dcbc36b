/** The bench harness: every figure registered once, named in the header, selectable; the seeded database file a server reads. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { startTestServer } from '../../reference-server/testing.ts';
import { seedDataFile } from './store-200k-latency.ts';
import { figures, registerFigure, selectFigures } from './index.ts';

it('registers each figure once, with its own file, and the header of index.ts lists every one', () => {
  const ids = figures.map((f) => f.id);
  expect(new Set(ids).size).toBe(ids.length);
  expect(ids.length).toBeGreaterThanOrEqual(5);
  const header = readFileSync(new URL('./index.ts', import.meta.url), 'utf8').split('*/')[0]!;
  const listed = [...header.matchAll(/^ \*\s+\d+\. ([a-z0-9-]+):/gm)].map((m) => m[1]);
  expect(listed).toEqual(ids);
  for (const id of ids) expect(() => readFileSync(new URL(`./${id}.ts`, import.meta.url))).not.toThrow();
});

it('selects figures by id, all by default, and refuses an unknown id naming the known ones', () => {
  expect(selectFigures([])).toEqual(figures);
  expect(selectFigures(['b2-vs-prism']).map((f) => f.id)).toEqual(['b2-vs-prism']);
  expect(() => selectFigures(['nope'])).toThrow(/no figure nope; figures: b2-validation-overhead/);
  expect(() => registerFigure(figures[0]!)).toThrow(/already registered/);
});

it('seeds a data file that a server on it reads back', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'paylater-bench-test-'));
  try {
    const file = path.join(dir, 'seeded.db');
    await seedDataFile(file, 50);
    const s = await startTestServer({ dataFile: file, webhookDispatcherFactory: null });
    try {
      expect(await s.handle.core.repo.count('transactions')).toBe(50);
      const r = await fetch(`${s.baseUrl}/api/v1/public/partner/transactions/vendor/SEED-7`, {
        headers: { 'X-Api-Key': s.merchants[0]!.apiKey },
      });
      expect(r.status).toBe(200);
      expect(((await r.json()) as { status: string }).status).toBe('COMPLETED');
    } finally {
      await s.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
