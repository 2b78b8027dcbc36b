/**
 * CLI exit codes: 2 for usage/setup errors (unreachable server, rejected keys, keys of one merchant
 * or two variants), 0 clean, 1 findings (from the first request on, with reports), 3 incomplete.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import type { SuiteResult } from './run.ts';
import { EXIT, HELP, runConform } from './cli.ts';
import { mutants } from './mutants/catalog.ts';
import { startProxy } from './mutants/proxy.ts';

let server: TestServer;
const hex = (): string => randomBytes(6).toString('hex');
const k = {
  main: `sk_test_cli_${hex()}`,
  other: `sk_test_cli_o_${hex()}`,
  m2: `sk_test_cli_m_${hex()}`,
  o2: `sk_test_cli_p_${hex()}`,
  twinA: `sk_test_cli_t_${hex()}`,
  twinB: `sk_test_cli_u_${hex()}`,
  m3: `sk_test_cli_q_${hex()}`,
  o3: `sk_test_cli_r_${hex()}`,
  m4: `sk_test_cli_s_${hex()}`,
  o4: `sk_test_cli_v_${hex()}`,
};
beforeAll(async () => {
  server = await startTestServer({
    merchants: [
      { name: 'A', storeName: 'A', apiKey: k.main, variant: 2 },
      { name: 'B', storeName: 'B', apiKey: k.other, variant: 2 },
      { name: 'C', storeName: 'C', apiKey: k.m2, variant: 1 },
      { name: 'D', storeName: 'D', apiKey: k.o2, variant: 1 },
      // two keys that create transactions of one merchant and store
      { name: 'Twin', storeName: 'Twin', apiKey: k.twinA, variant: 1 },
      { name: 'Twin', storeName: 'Twin', apiKey: k.twinB, variant: 1 },
      { name: 'E', storeName: 'E', apiKey: k.m3, variant: 1 },
      { name: 'F', storeName: 'F', apiKey: k.o3, variant: 1 },
      { name: 'G', storeName: 'G', apiKey: k.m4, variant: 1 },
      { name: 'H', storeName: 'H', apiKey: k.o4, variant: 1 },
    ],
  });
});
afterAll(async () => server?.close());

function capture(): { lines: string[]; out: (s: string) => void } {
  const lines: string[] = [];
  return { lines, out: (s) => lines.push(s) };
}

function readReport(file: string): SuiteResult {
  return JSON.parse(readFileSync(file, 'utf8')) as SuiteResult;
}

/**
 * Runs `paylater conform` (with `args`) through a proxy injecting the mutant `name`, writing JSON
 * and JUnit reports; `whileUp` runs before the proxy closes (e.g. to replay a curl script on it).
 */
async function conformThrough(
  name: string,
  keys: { main: string; other: string },
  args: string[],
  whileUp?: (proxyUrl: string, report: SuiteResult) => Promise<void>,
): Promise<{ code: number; lines: string[]; report: SuiteResult; junit: string }> {
  const proxy = await startProxy({
    upstream: server.baseUrl,
    mutant: mutants.find((m) => m.name === name)!,
    keys,
    webhookTarget: 'http://127.0.0.1:9',
    secret: 'whsec_AAAA',
  });
  const dir = mkdtempSync(join(tmpdir(), 'conform-'));
  const c = capture();
  try {
    const all = ['--base-url', proxy.url, '--api-key', keys.main, '--other-api-key', keys.other, ...args];
    const code = await runConform([...all, '--report-json', join(dir, 'r.json'), '--report-junit', join(dir, 'r.xml')], c.out, c.out);
    const report = readReport(join(dir, 'r.json'));
    await whileUp?.(proxy.url, report);
    return { code, lines: c.lines, report, junit: readFileSync(join(dir, 'r.xml'), 'utf8') };
  } finally {
    await proxy.close();
  }
}

describe('paylater conform', () => {
  it('exits 2 on a usage error', async () => {
    const c = capture();
    expect(await runConform(['--base-url', server.baseUrl], c.out, c.out)).toBe(2);
    expect(c.lines.join('\n')).toMatch(/required/);
  });
  it('exits 2 in one line when the server is unreachable', async () => {
    const c = capture();
    expect(
      await runConform(['--base-url', 'http://127.0.0.1:9', '--api-key', k.main, '--other-api-key', k.other, '--quiet'], c.out, c.out),
    ).toBe(2);
    expect(c.lines).toHaveLength(1);
    expect(c.lines[0]).toMatch(/cannot reach/);
  });
  it('exits 2 when a key is rejected', async () => {
    const c = capture();
    expect(
      await runConform(
        ['--base-url', server.baseUrl, '--api-key', 'sk_test_nobody_123456', '--other-api-key', k.other, '--quiet'],
        c.out,
        c.out,
      ),
    ).toBe(2);
    expect(c.lines[0]).toMatch(/--api-key was rejected/);
  });
  it('exits 0 against the reference server, printing the seed and coverage', async () => {
    const c = capture();
    expect(
      await runConform(
        ['--base-url', server.baseUrl, '--api-key', k.main, '--other-api-key', k.other, '--variant', '2', '--runs', '3', '--seed', '42'],
        c.out,
        c.out,
      ),
    ).toBe(0);
    const text = c.lines.join('\n');
    expect(text).toMatch(/seed 42/);
    expect(text).toMatch(/transitions exercised: .*create/);
  });
  it('exits 1 on a finding and writes the JSON and JUnit reports with a curl script', async () => {
    // a fault only the random search meets (the tour's first look and probes read no Moroccan mobile back)
    const r = await conformThrough(
      'a Moroccan mobile (2126…/2127…) read back in national form (06…/07…) by B2/B3',
      { main: k.m2, other: k.o2 },
      ['--variant', '1', '--runs', '20', '--seed', '7'],
    );
    expect(r.code).toBe(1);
    const report = r.report;
    expect(report.findings[0]!.message).toMatch(/\$\.customerPhone/);
    // the message names the request whose answer broke the rule
    expect(report.findings[0]!.message).toMatch(/GET \/api\/v1\/public\/partner\/transactions\/[0-9a-f-]+: 200 body/);
    expect(report.findings[0]!.curl).toMatch(/\$\{API_KEY\}/);
    expect(report.findings[0]!.phase, report.findings[0]!.replay).toBe('property');
    expect(report.findings[0]!.replay).toMatch(/--seed 7 --path \S+/);
    expect(r.junit).toMatch(/<failure message=/);
    expect(r.lines.join('\n')).toMatch(/curl -sS -X GET/);
  });

  it('--bail ends the run at its first finding; without it the later phases still run', async () => {
    const keys = { main: k.m4, other: k.o4 };
    const bail = await conformThrough('HEAD not served (404)', keys, ['--runs', '2', '--seed', '5', '--bail']);
    expect(bail.code).toBe(EXIT.findings);
    expect(bail.report.findings).toHaveLength(1);
    expect(bail.report.findings[0]!.commands.at(-1)).toMatch(/^headProbe/);
    expect(bail.lines.join('\n')).not.toMatch(/property: 2 runs/);
    const full = await conformThrough('HEAD not served (404)', keys, ['--runs', '2', '--seed', '5']);
    expect(full.code).toBe(EXIT.findings);
    expect(full.lines.join('\n')).toMatch(/property: 2 runs/);
    expect(full.report.requests).toBeGreaterThan(bail.report.requests * 2);
  });
  it('--help documents every option with its default, the exit codes and two examples', async () => {
    const c = capture();
    expect(await runConform(['--help'], c.out, c.out)).toBe(EXIT.clean);
    const text = c.lines.join('\n');
    expect(text).toBe(HELP);
    const source = readFileSync(new URL('./cli.ts', import.meta.url), 'utf8');
    const options = [...source.matchAll(/'([a-z-]+)': \{ type|\b([a-z]+): \{ type/g)].map((m) => m[1] ?? m[2]);
    expect(options.length).toBeGreaterThan(10);
    for (const o of options) expect(text, o).toMatch(new RegExp(`--${o}\\b`));
    for (const code of Object.values(EXIT)) expect(text).toMatch(new RegExp(`^ {2}${code} {2}`, 'm'));
    expect(text.match(/^ {2}paylater conform --base-url/gm)).toHaveLength(2);
    expect(text).toMatch(/default: 30/);
  });
  it.each(['404 answered with code NOT_FOUND', '404 answered in another error shape'])(
    'a violation on the first request is a finding with reports, not a setup error: %s',
    async (name) => {
      const r = await conformThrough(name, { main: k.m3, other: k.o3 }, ['--runs', '2', '--seed', '1']);
      expect(r.code).toBe(EXIT.findings);
      const report = r.report;
      expect(report.findings[0]!.phase).toBe('setup');
      expect(report.findings[0]!.message).toMatch(/GET \/api\/v1\/public\/partner\/transactions\/[0-9a-f-]{36}/);
      expect(report.findings[0]!.curl).toMatch(/curl -sS -X GET/);
      expect(r.junit).toMatch(/<failure message=/);
    },
  );
  it.each([
    ['of two variants', k.m2, k.other, '1', /different variants/],
    ['of Variant 1 with --variant 2', k.m2, k.o2, '2', /Variant 1 keys; pass --variant 1/],
    ['of Variant 2 with --variant 1', k.main, k.other, '1', /Variant 2 keys/],
    ['of one merchant', k.twinA, k.twinB, '1', /belong to one merchant/],
    ['one key twice', k.twinA, k.twinA, '1', /same key/],
  ])('exits 2 naming the problem when the two keys are %s', async (_what, main, other, variant, message) => {
    const c = capture();
    expect(
      await runConform(
        ['--base-url', server.baseUrl, '--api-key', main, '--other-api-key', other, '--variant', variant, '--quiet'],
        c.out,
        c.out,
      ),
    ).toBe(EXIT.setup);
    expect(c.lines[0]).toMatch(message);
  });
  it('a spent A1 budget makes a core run incomplete (exit 3, listing what was not exercised), never clean', async () => {
    const first = capture();
    // the first run's tour ends with a burst that spends the window's A1 budget
    expect(
      await runConform(
        ['--base-url', server.baseUrl, '--api-key', k.m3, '--other-api-key', k.o3, '--runs', '2', '--seed', '3'],
        first.out,
        first.out,
      ),
    ).toBe(EXIT.clean);
    const second = capture();
    expect(
      await runConform(
        ['--base-url', server.baseUrl, '--api-key', k.m3, '--other-api-key', k.o3, '--runs', '2', '--seed', '4'],
        second.out,
        second.out,
      ),
    ).toBe(EXIT.incomplete);
    const text = second.lines.join('\n');
    expect(text).toMatch(/INCOMPLETE/);
    expect(text).toMatch(/error createSession 400 AMOUNT_MISMATCH/);
    expect(text).toMatch(/429/);
  });
  it('the curl script of a finding draws fresh references, so it replays on the same server', async () => {
    const r = await conformThrough(
      'duplicate vendorReference accepted',
      { main: k.m2, other: k.o2 },
      ['--runs', '20', '--seed', '7', '--quiet'],
      async (url, report) => {
        const curl = report.findings[0]!.curl;
        expect(curl).toMatch(/VENDOR_REFERENCE_1=\$\{VENDOR_REFERENCE_1:-/);
        const env = { ...process.env, API_KEY: k.m2, OTHER_API_KEY: k.o2, BASE_URL: url };
        // twice against the same (faulty) server: the first create of each run is accepted again
        for (let i = 0; i < 2; i++) {
          // async: the proxy answering the script runs in this process
          const { stdout: out } = await promisify(execFile)('bash', ['-c', curl], { env, encoding: 'utf8' });
          expect(out).toMatch(/"status":"PENDING"/);
          expect(out).not.toMatch(/\/null|DUPLICATE_VENDOR_REFERENCE"[^]*DUPLICATE_VENDOR_REFERENCE/);
        }
      },
    );
    expect(r.code).toBe(EXIT.findings);
  });
});
