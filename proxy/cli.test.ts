/**
 * `paylater proxy` as a command: --help documents every option; bad options exit 2; on SIGTERM it
 * writes the JSON, JUnit and HAR reports (keys masked) and exits 1 with findings; on SIGINT too, 0 without.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP, OPTIONS, startProxyCommand } from './cli.ts';
import { spawnListening } from './test-support/listening.ts';
import { paylaterUsage } from './test-support/usage.ts';

const KEY = `sk_test_cli_${randomUUID().replace(/-/g, '')}`;
let upstream: Server;
let upstreamUrl: string;

beforeAll(async () => {
  // answers B1 with 200 (the contract says 201): one finding per create
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}`;
});
afterAll(async () => {
  upstream?.closeAllConnections();
  await new Promise<void>((r) => upstream?.close(() => r()));
});

describe('paylater proxy --help', () => {
  it('documents every option, the reserved path, the exit codes; paylater --help lists the command', async () => {
    for (const name of Object.keys(OPTIONS)) expect(HELP).toMatch(new RegExp(`^  --${name}\\b`, 'm'));
    expect(HELP).toContain('GET /_paylater/report');
    expect(HELP).toMatch(/Exit codes[\s\S]*0 {2}no finding[\s\S]*1 {2}at least one finding/);
    const out: string[] = [];
    expect(await startProxyCommand(['--help'], (s) => out.push(s))).toBe(0);
    expect(out.join('\n')).toBe(HELP);
    expect(await paylaterUsage()).toMatch(/^ {2}proxy {5}.*paylater proxy --help$/m);
  });

  it('refuses bad options with exit 2 and one line', async () => {
    const errs: string[] = [];
    const e = (s: string) => errs.push(s);
    expect(await startProxyCommand(['--variant', '1'], () => {}, e)).toBe(2);
    expect(await startProxyCommand(['--upstream', upstreamUrl, '--variant', '3'], () => {}, e)).toBe(2);
    expect(await startProxyCommand(['--upstream', upstreamUrl, '--variant', '1', '--webhook-listen', '0'], () => {}, e)).toBe(2);
    expect(await startProxyCommand(['--upstream', upstreamUrl, '--variant', '1', '--port', 'x'], () => {}, e)).toBe(2);
    expect(await startProxyCommand(['--bogus'], () => {}, e)).toBe(2);
    expect(errs).toHaveLength(5);
    expect(errs.every((l) => l.startsWith('paylater proxy: '))).toBe(true);
  });
});

/** Runs `paylater proxy` in a process of its own: node itself with tsx as a loader (not tsx's wrapper process, which relays signals its own way). */
const spawnProxy = (args: string[]) => spawnListening(['--import', 'tsx', 'scripts/cli.ts', 'proxy', ...args]);

describe('paylater proxy, run as a command', () => {
  it('with findings: on SIGTERM writes the three reports, masked, and exits 1', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'paylater-proxy-'));
    const files = { json: path.join(dir, 'r.json'), junit: path.join(dir, 'r.xml'), har: path.join(dir, 'r.har') };
    const p = await spawnProxy([
      '--upstream',
      upstreamUrl,
      '--variant',
      '1',
      '--port',
      '0',
      '--report-json',
      files.json,
      '--report-junit',
      files.junit,
      '--har',
      files.har,
    ]);
    const res = await fetch(`${p.url}/api/v1/public/partner/transactions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'X-Service-Key': KEY },
      body: JSON.stringify({ total: 600 }),
    });
    expect(res.status).toBe(200);
    const live = (await (await fetch(`${p.url}/_paylater/report`)).json()) as { findings: number; exitCode: number };
    expect(live.findings).toBeGreaterThan(0);
    const { code, out } = await p.stop();
    expect(code).toBe(1);
    const json = JSON.parse(readFileSync(files.json, 'utf8')) as { findingList: { message: string; curl: string }[] };
    expect(json.findingList[0]!.message).toMatch(/answered 200, a status not declared|200/);
    expect(json.findingList[0]!.curl).toMatch(/^#!\/usr\/bin\/env bash/);
    expect(readFileSync(files.junit, 'utf8')).toMatch(/<testsuite name="paylater proxy v1[^"]*" tests="\d+" failures="[1-9]/);
    const har = JSON.parse(readFileSync(files.har, 'utf8')) as { log: { entries: { request: { url: string } }[] } };
    expect(har.log.entries.some((e) => e.request.url.endsWith('/api/v1/public/partner/transactions'))).toBe(true);
    for (const f of Object.values(files)) expect(readFileSync(f, 'utf8')).not.toContain(KEY);
    expect(out).not.toContain(KEY);
  }, 60_000);

  it('without findings: on SIGINT writes its report and exits 0', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'paylater-proxy-')), 'r.json');
    const p = await spawnProxy(['--upstream', upstreamUrl, '--variant', '2', '--port', '0', '--quiet', '--report-json', file]);
    const { code, out } = await p.stop('SIGINT');
    expect(code).toBe(0);
    expect(out).toContain('SIGINT, writing the reports');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ findings: 0, exitCode: 0 });
  }, 60_000);
});
