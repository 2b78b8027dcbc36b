/**
 * The suite's traffic as HAR: `paylater proxy --har` in front of a faulty server, then
 * `paylater judge` on the file gives the findings the proxy reported live; a suite run recorded
 * through the proxy, replayed by `paylater judge --replay` against a fresh reference server, gives
 * none, and against a faulty one the fault, as a "replay" finding naming both exchanges.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance } from '../conformance/index.ts';
import { merchantPair, type MerchantPair } from '../conformance/merchant-pairs.ts';
import { mutants } from '../conformance/mutants/catalog.ts';
import { startProxy } from '../conformance/mutants/proxy.ts';
import type { MerchantSpec } from '../conformance/mutants/selftest.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { startProxyCommand } from '../proxy/cli.ts';
import { runJudge } from './judge-cli.ts';
import { startLiveProxy } from '../proxy/server.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const dir = mkdtempSync(path.join(tmpdir(), 'paylater-har-suite-'));
let server: TestServer;
let faultyPair: MerchantPair;
let recordedPair: MerchantPair;
let recordedMerchants: MerchantSpec[];

interface Listed {
  findings: number;
  findingList: { kind: string; operation: string; jsonPath: string; message: string; exchanges: { n: number; url: string }[] }[];
}
/** A finding as both ears word it: the exchanges' numbers are each ear's own (the proxy counts webhooks too). */
const worded = (r: Listed) => r.findingList.map((f) => [f.kind, f.operation, f.jsonPath, f.message.replace(/exchange \d+/g, 'exchange N')]);

beforeAll(async () => {
  const a = await merchantPair('hsf', 0, 1, secret);
  const b = await merchantPair('hsr', 1, 1, secret);
  faultyPair = a.pair;
  recordedPair = b.pair;
  recordedMerchants = b.merchants;
  server = await startTestServer({ merchants: [...a.merchants, ...b.merchants], mode: 'sandbox' });
});
afterAll(async () => {
  await server?.close();
});

/** The catalogue's mutant `name` in front of `upstream`, speaking to `pair`'s keys. */
const faultyProxy = (upstream: string, name: string, pair: MerchantPair) =>
  startProxy({
    upstream,
    mutant: mutants.find((m) => m.name === name)!,
    keys: { main: pair.main, other: pair.other },
    webhookTarget: `http://127.0.0.1:${pair.port}/hooks`,
    secret,
  });

describe('paylater proxy --har, then paylater judge', () => {
  it('judging the proxy HAR offline gives the findings the proxy reported live', async () => {
    const faulty = await faultyProxy(server.baseUrl, 'B2 read: totalAmount a centime more than created', faultyPair);
    const [har, live, offline] = ['proxy.har', 'proxy.json', 'judge.json'].map((f) => path.join(dir, f));
    const started = await startProxyCommand(
      ['--upstream', faulty.url, '--port', '0', '--keep-exchanges', '100000', '--har', har!, '--report-json', live!, '--quiet'],
      () => {},
    );
    if (typeof started === 'number') throw new Error(`the proxy did not start: exit ${started}`);
    try {
      const r = await runConformance({
        baseUrl: started.proxy.url,
        apiKey: faultyPair.main,
        otherApiKey: faultyPair.other,
        variant: 1,
        profile: 'core',
        runs: 5,
        seed: 4901,
        maxCommands: 15,
        bail: true,
        timeLimitMs: 30_000,
      });
      expect(r.findings.length).toBeGreaterThan(0);
    } finally {
      expect(await started.stop()).toBe(1);
      await faulty.close();
    }
    expect(await runJudge([har!, '--report-json', offline!], () => {})).toBe(1);
    const [proxyReport, judgeReport] = [live!, offline!].map((f) => JSON.parse(readFileSync(f, 'utf8')) as Listed) as [Listed, Listed];
    expect(judgeReport.findings).toBeGreaterThan(0);
    expect(worded(judgeReport)).toEqual(worded(proxyReport));
    // each names the same exchanges, by URL
    expect(judgeReport.findingList.map((f) => f.exchanges.map((x) => x.url))).toEqual(
      proxyReport.findingList.map((f) => f.exchanges.map((x) => x.url)),
    );
  }, 150_000);
});

describe('paylater judge --replay', () => {
  const recorded = path.join(dir, 'recorded.har');
  const merchantsFile = path.join(dir, 'merchants.json');

  beforeAll(async () => {
    const proxy = await startLiveProxy({ upstream: server.baseUrl, keepExchanges: 100_000 });
    try {
      const r = await runConformance({
        baseUrl: proxy.url,
        apiKey: recordedPair.main,
        otherApiKey: recordedPair.other,
        variant: 1,
        profile: 'core',
        runs: 5,
        seed: 4902,
        maxCommands: 15,
      });
      expect(r.findings.map((f) => f.message)).toEqual([]);
    } finally {
      await proxy.close();
    }
    expect(proxy.recorder.findingCount).toBe(0);
    proxy.recorder.writeFiles({ har: recorded });
    writeFileSync(merchantsFile, JSON.stringify(recordedMerchants));
  }, 150_000);

  it('against a fresh reference server with the same merchants: every answer as recorded, no finding; the new exchanges as HAR, masked', async () => {
    const fresh = await startTestServer({ merchants: recordedMerchants, mode: 'sandbox' });
    try {
      const [out, json] = [path.join(dir, 'replayed.har'), path.join(dir, 'replay.json')];
      const lines: string[] = [];
      const code = await runJudge(
        [recorded, '--replay', '--base-url', fresh.baseUrl, '--merchants', merchantsFile, '--har', out, '--report-json', json, '--quiet'],
        (l) => lines.push(l),
      );
      expect(lines.filter((l) => l.startsWith('---'))).toEqual([]);
      expect(code).toBe(0);
      const report = JSON.parse(readFileSync(json, 'utf8')) as { replay: { replayed: number; substitutions: number } };
      expect(report.replay.replayed).toBeGreaterThan(100);
      expect(report.replay.substitutions).toBeGreaterThan(20); // ids, tokens, references
      const written = readFileSync(out, 'utf8');
      expect((JSON.parse(written) as { log: { entries: unknown[] } }).log.entries).toHaveLength(report.replay.replayed);
      for (const k of [recordedPair.main, recordedPair.other]) expect(written).not.toContain(k);
    } finally {
      await fresh.close();
    }
  }, 120_000);

  it('against a faulty server (B1 answered 200): the fault, the replay finding naming both exchanges', async () => {
    const fresh = await startTestServer({ merchants: recordedMerchants, mode: 'sandbox' });
    const faulty = await faultyProxy(fresh.baseUrl, '200 instead of 201 on create', recordedPair);
    try {
      const json = path.join(dir, 'replay-faulty.json');
      expect(
        await runJudge([recorded, '--replay', '--base-url', faulty.url, '--merchants', merchantsFile, '--report-json', json], () => {}),
      ).toBe(1);
      const report = JSON.parse(readFileSync(json, 'utf8')) as Listed & { findingList: { expected: unknown; actual: unknown }[] };
      const replayFinding = report.findingList.find((f) => f.kind === 'replay');
      expect(replayFinding).toMatchObject({ operation: 'createPartnerTransaction', expected: 201, actual: 200 });
      const [was, now] = replayFinding!.exchanges;
      expect(was!.n).toBeLessThan(now!.n);
      expect(new URL(was!.url).origin).toBe(server.baseUrl);
      expect(new URL(now!.url).origin).toBe(faulty.url);
      expect(report.findingList.some((f) => f.kind === 'answer' && f.operation === 'createPartnerTransaction')).toBe(true);
    } finally {
      await faulty.close();
      await fresh.close();
    }
  }, 120_000);

  it('a masked key the recorded server accepted, with no merchants file: refused, naming the file', async () => {
    const errs: string[] = [];
    expect(
      await runJudge(
        [recorded, '--replay', '--base-url', server.baseUrl],
        () => {},
        (s) => errs.push(s),
      ),
    ).toBe(2);
    expect(errs).toEqual([
      expect.stringMatching(/^paylater judge: .*recorded\.har: exchange \d+ sends x-[a-z-]+: MASKED_[0-9a-f]{8}, a masked key/),
    ]);
  });
});
