/** CLI exit codes: 2 for usage/setup errors (unreachable server, rejected keys), 0 clean, 1 findings. */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { runConform } from './cli.ts';
import type { Finding } from './report.ts';
import { mutants } from './mutants/catalog.ts';
import { startProxy } from './mutants/proxy.ts';

let server: TestServer;
const k = { main: `sk_test_cli_${randomBytes(6).toString('hex')}`, other: `sk_test_cli_o_${randomBytes(6).toString('hex')}`, m2: `sk_test_cli_m_${randomBytes(6).toString('hex')}`, o2: `sk_test_cli_p_${randomBytes(6).toString('hex')}` };
beforeAll(async () => {
  server = await startTestServer({ merchants: [
    { name: 'A', storeName: 'A', apiKey: k.main, variant: 2 }, { name: 'B', storeName: 'B', apiKey: k.other, variant: 2 },
    { name: 'C', storeName: 'C', apiKey: k.m2, variant: 1 }, { name: 'D', storeName: 'D', apiKey: k.o2, variant: 1 },
  ] });
});
afterAll(async () => server?.close());

function capture(): { lines: string[]; out: (s: string) => void } {
  const lines: string[] = [];
  return { lines, out: (s) => lines.push(s) };
}

describe('paylater conform', () => {
  it('exits 2 on a usage error', async () => {
    const c = capture();
    expect(await runConform(['--base-url', server.baseUrl], c.out, c.out)).toBe(2);
    expect(c.lines.join('\n')).toMatch(/required/);
  });
  it('exits 2 in one line when the server is unreachable', async () => {
    const c = capture();
    expect(await runConform(['--base-url', 'http://127.0.0.1:9', '--api-key', k.main, '--other-api-key', k.other, '--quiet'], c.out, c.out)).toBe(2);
    expect(c.lines).toHaveLength(1);
    expect(c.lines[0]).toMatch(/cannot reach/);
  });
  it('exits 2 when a key is rejected', async () => {
    const c = capture();
    expect(await runConform(['--base-url', server.baseUrl, '--api-key', 'sk_test_nobody_123456', '--other-api-key', k.other, '--quiet'], c.out, c.out)).toBe(2);
    expect(c.lines[0]).toMatch(/--api-key was rejected/);
  });
  it('exits 0 against the reference server, printing the seed and coverage', async () => {
    const c = capture();
    expect(await runConform(['--base-url', server.baseUrl, '--api-key', k.main, '--other-api-key', k.other, '--variant', '2', '--runs', '3', '--seed', '42'], c.out, c.out)).toBe(0);
    const text = c.lines.join('\n');
    expect(text).toMatch(/seed 42/);
    expect(text).toMatch(/transitions exercised: .*create/);
  });
  it('exits 1 on a finding and writes the JSON and JUnit reports with a curl script', async () => {
    const mutant = mutants.find((m) => m.name === 'updatedAt set at creation')!;
    const proxy = await startProxy({ upstream: server.baseUrl, mutant, keys: { main: k.m2, other: k.o2 }, webhookTarget: 'http://127.0.0.1:9', secret: 'whsec_AAAA' });
    const dir = mkdtempSync(join(tmpdir(), 'conform-'));
    const c = capture();
    try {
      expect(await runConform(['--base-url', proxy.url, '--api-key', k.m2, '--other-api-key', k.o2, '--variant', '1', '--runs', '20', '--seed', '7', '--report-json', join(dir, 'r.json'), '--report-junit', join(dir, 'r.xml')], c.out, c.out)).toBe(1);
    } finally {
      await proxy.close();
    }
    const report = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as { findings: Finding[] };
    expect(report.findings[0]?.message).toMatch(/updatedAt/);
    expect(report.findings[0]?.curl).toMatch(/\$\{API_KEY\}/);
    expect(report.findings[0]?.phase, report.findings[0]?.replay).toBe('property');
    expect(report.findings[0]?.replay).toMatch(/--seed 7 --path \S+/);
    expect(readFileSync(join(dir, 'r.xml'), 'utf8')).toMatch(/<failure message=/);
    expect(c.lines.join('\n')).toMatch(/curl -sS -X POST/);
  });
});
