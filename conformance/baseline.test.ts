/**
 * Adoption step by step: `paylater conform --write-baseline FILE` records today's findings by a key
 * (rule, operation, JSON path) stable across seeds and runs; `--baseline FILE` reports those as
 * known (JUnit: skipped with the reason), fails only on new ones, and lists entries no longer met.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { findingKey, judgeByBaseline, pathOf, ruleOf, type Baseline } from './baseline.ts';
import { EXIT, runConform } from './cli.ts';
import { mutants } from './mutants/catalog.ts';
import { startProxy, type Mutant } from './mutants/proxy.ts';
import type { Finding } from '../judge/report.ts';

const PAIRS = 8;
let server: TestServer;
const pairs: { main: string; other: string }[] = [];
let next = 0;
const dir = mkdtempSync(join(tmpdir(), 'baseline-'));

beforeAll(async () => {
  for (let i = 0; i < PAIRS; i++)
    pairs.push({
      main: `sk_test_base_m${i}_${randomBytes(6).toString('hex')}`,
      other: `sk_test_base_o${i}_${randomBytes(6).toString('hex')}`,
    });
  server = await startTestServer({
    merchants: pairs.flatMap((p, i) => [
      { name: `Base ${i}`, storeName: `Base ${i}`, apiKey: p.main, variant: 1 as const },
      { name: `Other ${i}`, storeName: `Other ${i}`, apiKey: p.other, variant: 1 as const },
    ]),
  });
});
afterAll(async () => server?.close());

const plain: Mutant = { name: 'no fault', profile: 'core' };
const byName = (name: string): Mutant => mutants.find((m) => m.name === name)!;

/** `paylater conform` (core profile, a fresh merchant pair: its own A1 window) through `mutant`, with `args`. */
async function conform(
  mutant: Mutant,
  args: string[],
): Promise<{ code: number; text: string; report: Record<string, unknown>; junit: string }> {
  const keys = pairs[next++]!;
  const proxy = await startProxy({ upstream: server.baseUrl, mutant, keys, webhookTarget: 'http://127.0.0.1:9', secret: 'whsec_AAAA' });
  const lines: string[] = [];
  const tag = `${next}`;
  try {
    const code = await runConform(
      [
        '--base-url',
        proxy.url,
        '--api-key',
        keys.main,
        '--other-api-key',
        keys.other,
        '--runs',
        '5',
        '--report-json',
        join(dir, `${tag}.json`),
        '--report-junit',
        join(dir, `${tag}.xml`),
        ...args,
      ],
      (s) => lines.push(s),
      (s) => lines.push(s),
    );
    const read = (f: string): string => {
      try {
        return readFileSync(join(dir, f), 'utf8');
      } catch {
        return '';
      }
    };
    const json = read(`${tag}.json`);
    return { code, text: lines.join('\n'), report: json ? (JSON.parse(json) as Record<string, unknown>) : {}, junit: read(`${tag}.xml`) };
  } finally {
    await proxy.close();
  }
}

const finding = (o: Partial<Finding>): Finding => ({
  title: 't',
  operation: 'getPartnerTransaction',
  jsonPath: '$',
  message: 'm',
  phase: 'property',
  commands: [],
  curl: '',
  seed: 1,
  replay: '',
  ...o,
});

describe('finding keys', () => {
  it('leave out what varies between runs: ids, paths, numbers, quoted values, array indexes', () => {
    const a = finding({
      operation: 'getPartnerTransactionByVendorReference',
      jsonPath: '$.items[3].name',
      message:
        'getPartnerTransactionByVendorReference $.items[3].name: GET /api/v1/public/partner/transactions/vendor/ref-a1b2c3 read back "Lamp", created "Lamp 2" at 2026-11-24T13:00:01.123Z (tx 8e1b6c8e-8f36-4b8e-9d55-0f3f1c2a7b10)',
    });
    const b = finding({
      operation: 'getPartnerTransactionByVendorReference',
      jsonPath: '$.items[0].name',
      message:
        'getPartnerTransactionByVendorReference $.items[0].name: GET /api/v1/public/partner/transactions/vendor/zz-99 read back "Chair", created "chair" at 2026-11-25T01:02:03.000Z (tx 0e1b6c8e-8f36-4b8e-9d55-0f3f1c2a7b11)',
    });
    expect(findingKey(a)).toBe(findingKey(b));
    expect(pathOf('$.items[12].unitPrice')).toBe('$.items[].unitPrice');
    expect(ruleOf(a)).toBe('GET {path} read back "…", created "…" at # (tx #)');
    // another operation, another path or another rule is another key
    expect(findingKey({ ...a, operation: 'getPartnerTransaction' })).not.toBe(findingKey(a));
    expect(findingKey({ ...a, jsonPath: '$.items[3].unitPrice' })).not.toBe(findingKey(a));
    expect(findingKey({ ...a, message: a.message.replace('read back', 'not listed') })).not.toBe(findingKey(a));
    // an unexpected error is keyed by its first line, not its stack
    const e1 = finding({ operation: '?', message: 'unexpected error: TypeError: x is undefined\n    at a (/x.ts:1:2)' });
    const e2 = finding({ operation: '?', message: 'unexpected error: TypeError: x is undefined\n    at b (/y.ts:9:9)' });
    expect(findingKey(e1)).toBe(findingKey(e2));
  });

  it('a coverage gap is known when a known finding stopped the coverage tour, new otherwise', () => {
    const tour = finding({ phase: 'tour', operation: 'cancelPartnerTransactionByVendorReference', message: 'answered 200' });
    const gap = finding({ phase: 'coverage', operation: 'complete', message: 'transition complete was never exercised' });
    const b: Baseline = {
      version: 1,
      createdBy: 'test',
      createdAt: '2026-11-24T00:00:00.000Z',
      entries: [{ key: findingKey(tour), rule: ruleOf(tour), operation: tour.operation, jsonPath: '$', example: tour.message }],
    };
    const j = judgeByBaseline([tour, gap], b, 'b.json');
    expect(j.fresh).toEqual([]);
    expect(j.known[1]!.reason).toMatch(/coverage tour stopped at a known finding/);
    expect(judgeByBaseline([gap], b, 'b.json').fresh).toEqual([gap]);
  });
});

describe('paylater conform --write-baseline / --baseline', () => {
  const file = join(dir, 'baseline.json');
  const fault = 'duplicate vendorReference accepted';

  it('records the findings (exit 0); another seed against the same fault meets the same keys: exit 0, known ones skipped in JUnit', async () => {
    const first = await conform(byName(fault), ['--seed', '1', '--write-baseline', file]);
    expect(first.code, first.text).toBe(EXIT.clean);
    expect(first.text).toMatch(/baseline: \d+ entr(y|ies) \(\d+ finding\(s\)\) written to/);
    const b = JSON.parse(readFileSync(file, 'utf8')) as Baseline;
    expect(b.entries.length).toBeGreaterThan(0);
    expect(b.entries.map((e) => e.key)).toContainEqual(
      expect.stringMatching(/^createPartnerTransaction \$\.vendorReference \| .*duplicate-reference/),
    );

    const again = await conform(byName(fault), ['--seed', '2', '--baseline', file]);
    expect(again.code, again.text).toBe(EXIT.clean);
    expect(again.text).toMatch(/finding\(s\): 0 new, [1-9]\d* known \(baseline /);
    expect(again.text).toMatch(/--- known findings/);
    expect(again.junit).toMatch(/<skipped message="known finding: in the baseline [^"]*baseline\.json \(recorded [^"]+\)"/);
    expect(again.junit).not.toMatch(/<failure/);
    expect(again.report.findings as Finding[]).not.toEqual([]);
    for (const f of again.report.findings as Finding[]) expect(f.key).toBe(findingKey(f));
  }, 120_000);

  it('fails on a new finding only, and lists the entries the run no longer meets', async () => {
    const r = await conform(byName('HEAD not served (404)'), ['--seed', '3', '--baseline', file]);
    expect(r.code, r.text).toBe(EXIT.findings);
    expect(r.text).toMatch(/--- new finding 1: HEAD /);
    expect(r.text).toMatch(/--- baseline entries not found by this run \(\d+\)/);
    expect(r.text).toMatch(/createPartnerTransaction \$\.vendorReference \| .*duplicate-reference/);
    expect(r.junit).toMatch(/<failure message="HEAD /);
    expect((r.report.baseline as { resolved: unknown[] }).resolved.length).toBeGreaterThan(0);
  }, 120_000);

  it('a fixed fault: exit 0, its entry reported so it can be removed', async () => {
    const r = await conform(plain, ['--seed', '4', '--baseline', file]);
    expect(r.code, r.text).toBe(EXIT.clean);
    expect(r.text).toMatch(/0 finding\(s\): 0 new, 0 known/);
    expect(r.text).toMatch(
      /baseline entries not found by this run[^\n]*remove the fixed ones[^\n]*\n {2}createPartnerTransaction \$\.vendorReference \| /,
    );
  }, 120_000);

  it('a damaged or foreign baseline is refused, naming the file (exit 2), never read as empty', async () => {
    const bad = join(dir, 'damaged.json');
    writeFileSync(bad, '{"version": 1, "entries": [');
    const c1 = await conform(plain, ['--baseline', bad]);
    expect(c1.code).toBe(EXIT.setup);
    expect(c1.text).toMatch(new RegExp(`--baseline ${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: not JSON`));
    writeFileSync(bad, '{"findings": []}');
    const c2 = await conform(plain, ['--baseline', bad]);
    expect(c2.code).toBe(EXIT.setup);
    expect(c2.text).toMatch(/not a baseline of paylater conform/);
    const c3 = await conform(plain, ['--baseline', join(dir, 'missing.json')]);
    expect(c3.code).toBe(EXIT.setup);
    expect(c3.text).toMatch(/missing\.json: cannot be read \(ENOENT\)/);
  });
});
