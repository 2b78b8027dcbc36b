/** The bench harness: every figure registered once, named in the header, selectable; the seeded database file a server reads. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { startTestServer } from '../../reference-server/testing.ts';
import { seedDataFile } from './store-200k-latency.ts';
import { figures, parseArgs, registerFigure, runBench, selectFigures, type Figure } from './index.ts';

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

it('reads `--json FILE` and the figure ids from the command line, refusing a missing file name or an unknown option', () => {
  expect(parseArgs([])).toEqual({ json: null, ids: [] });
  expect(parseArgs(['--json', 'out.json', 'b2-validation-overhead', 'proxy-overhead'])).toEqual({
    json: 'out.json',
    ids: ['b2-validation-overhead', 'proxy-overhead'],
  });
  expect(parseArgs(['proxy-overhead', '--json', 'out.json'])).toEqual({ json: 'out.json', ids: ['proxy-overhead'] });
  expect(() => parseArgs(['--json'])).toThrow(/--json needs a file name/);
  expect(() => parseArgs(['--json', '--x'])).toThrow(/--json needs a file name/);
  expect(() => parseArgs(['--jsn', 'f'])).toThrow(/unknown option --jsn/);
});

it('writes `[{ id, ratio, target, verdict }]` with --json: met, missed, reported, not measured; 1 when a target is missed', async () => {
  const fig = (id: string, ratio: number | null, pass?: (r: number) => boolean): Figure => ({
    id,
    title: id,
    target: pass ? '≥ 0.5' : 'report',
    pass,
    run: async () => (ratio === null ? Promise.reject(new Error('no server')) : { ratio, detail: `${id} measured` }),
  });
  const dir = mkdtempSync(path.join(tmpdir(), 'paylater-bench-json-'));
  try {
    const file = path.join(dir, 'figures.json');
    const lines: string[] = [];
    const selected = [fig('a', 0.75, (r) => r >= 0.5), fig('b', 0.25, (r) => r >= 0.5), fig('c', 3), fig('d', null, (r) => r >= 0.5)];
    expect(await runBench(selected, { json: file, log: (l) => lines.push(l) })).toBe(1);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual([
      { id: 'a', ratio: 0.75, target: '≥ 0.5', verdict: 'met' },
      { id: 'b', ratio: 0.25, target: '≥ 0.5', verdict: 'missed' },
      { id: 'c', ratio: 3, target: 'report', verdict: 'reported' },
      { id: 'd', ratio: null, target: '≥ 0.5', verdict: 'not measured' },
    ]);
    expect(lines.join('\n')).toMatch(/not measured: no server/);
    expect(await runBench([selected[0]!, selected[2]!], { json: file, log: () => {} })).toBe(0);
    expect((JSON.parse(readFileSync(file, 'utf8')) as Array<{ id: string }>).map((r) => r.id)).toEqual(['a', 'c']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it("runs a figure's own rounds unless BENCH_ROUNDS says otherwise, and the default for the others", async () => {
  const seen: Record<string, number> = {};
  const fig = (id: string, rounds?: number): Figure => ({
    id,
    title: id,
    target: 'report',
    rounds,
    run: async (ctx) => {
      seen[id] = ctx.rounds;
      return { ratio: 1, detail: id };
    },
  });
  const saved = process.env.BENCH_ROUNDS;
  const lines: string[] = [];
  try {
    delete process.env.BENCH_ROUNDS;
    await runBench([fig('own', 7), fig('default')], { log: (l) => lines.push(l) });
    expect(seen).toEqual({ own: 7, default: 3 });
    expect(lines).toContain('[own] own … (7 rounds, its own)');
    process.env.BENCH_ROUNDS = '2';
    await runBench([fig('own', 7), fig('default')], { log: () => {} });
    expect(seen).toEqual({ own: 2, default: 2 });
  } finally {
    if (saved === undefined) delete process.env.BENCH_ROUNDS;
    else process.env.BENCH_ROUNDS = saved;
  }
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
