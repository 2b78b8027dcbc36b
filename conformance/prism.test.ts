/**
 * Against Prism's stateless mock of our own document, the suite reports findings (exit 1, JSON and
 * JUnit reports written): a mock that answers every request with an example is not a setup error.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledDocumentPath } from '../generated/index.ts';
import type { SuiteResult } from './run.ts';
import { EXIT, runConform } from './cli.ts';
import { freePort } from '../lib/free-port.ts';

let child: ChildProcess | undefined;
let baseUrl = '';

function prismEntry(): string {
  const pkg = createRequire(import.meta.url).resolve('@stoplight/prism-cli/package.json');
  const entry = path.join(path.dirname(pkg), 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error(`${entry} is missing: npm ci installs @stoplight/prism-cli`);
  return entry;
}

beforeAll(async () => {
  const port = await freePort();
  child = spawn(process.execPath, [prismEntry(), 'mock', '-h', '127.0.0.1', '-p', String(port), bundledDocumentPath(1)], {
    stdio: 'ignore',
  });
  baseUrl = `http://127.0.0.1:${port}`;
  const end = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Prism exited with ${child.exitCode}`);
    try {
      await (await fetch(`${baseUrl}/api/v1/sandbox/clock`, { headers: { 'X-API-Key': 'sk_test_probe_0000' } })).arrayBuffer();
      return;
    } catch {
      if (Date.now() > end) throw new Error('Prism did not listen within 90 s');
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}, 100_000);
afterAll(() => {
  child?.kill('SIGTERM');
});

function readReport(file: string): SuiteResult {
  return JSON.parse(readFileSync(file, 'utf8')) as SuiteResult;
}

describe("paylater conform against Prism's stateless mock", () => {
  it('reports findings and writes both reports', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'conform-prism-'));
    const lines: string[] = [];
    const code = await runConform(
      [
        '--base-url',
        baseUrl,
        '--api-key',
        'sk_test_prism_a_123456',
        '--other-api-key',
        'sk_test_prism_b_123456',
        '--runs',
        '2',
        '--seed',
        '1',
        '--report-json',
        path.join(dir, 'r.json'),
        '--report-junit',
        path.join(dir, 'r.xml'),
      ],
      (s) => lines.push(s),
      (s) => lines.push(s),
    );
    expect(code, lines.join('\n')).toBe(EXIT.findings);
    const report = readReport(path.join(dir, 'r.json'));
    expect(report.findings.length).toBeGreaterThan(0);
    // a stateless mock answers its example whatever the id: B2 names another transaction, or answers one the model says is not there
    expect(report.findings[0]!.message).toMatch(
      /answered transaction .* \(judge rule: b2-b3\)|answered 200; the model expects 404 TRANSACTION_NOT_FOUND/,
    );
    expect(readFileSync(path.join(dir, 'r.xml'), 'utf8')).toMatch(/<failure message=/);
  }, 60_000);
});
