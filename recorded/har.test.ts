/**
 * `paylater judge FILE.har`: one story of traffic (B1 creates a transaction on the reference server,
 * B2 reads it back with another total) written as each HAR writer writes it reads to the same
 * exchanges, and is judged to the same finding, named on the B2 exchange; a damaged or foreign file
 * is refused with a message naming it; the command's help, options, reports and exit codes.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { paylaterUsage } from '../proxy/test-support/usage.ts';
import { instant } from '../judge/clock.ts';
import { isoMicro } from '../judge/clock.ts';
import { parseHar, readHar } from './har.ts';
import { createJudge, type Exchange } from '../judge/index.ts';
import { judgeRecorded } from '../judge/recorded.ts';
import { HELP, OPTIONS, runJudge } from './judge-cli.ts';
import { mask } from '../judge/mask.ts';
import { startLiveProxy } from '../proxy/server.ts';
import { chromeDevtools, k6Studio, mitmproxy, playwrightEmbed, playwrightZip, proxyHar } from './test-support/har-dialects.ts';

const KEY = `sk_test_har_${randomUUID().replace(/-/g, '')}`;
const SECRET = `whsec_${Buffer.from(randomUUID()).toString('base64')}`;
const dir = mkdtempSync(path.join(tmpdir(), 'paylater-har-'));
let server: TestServer;
let story: Exchange[];

/** One exchange with the reference server, timed on the epoch clock (µs kept). */
async function exchange(seq: number, method: string, url: string, headers: Record<string, string>, body?: string): Promise<Exchange> {
  const sentAt = performance.timeOrigin + performance.now();
  const res = await fetch(url, { method, headers, body });
  const responseText = await res.text();
  const responseHeaders: Record<string, string> = {};
  res.headers.forEach((v, k) => (responseHeaders[k] = v));
  return {
    seq,
    method,
    url,
    headers,
    body,
    status: res.status,
    responseHeaders,
    responseText,
    sentAt,
    receivedAt: performance.timeOrigin + performance.now(),
  };
}

beforeAll(async () => {
  server = await startTestServer({
    merchants: [
      {
        name: 'Atlas',
        storeName: 'Atlas Casablanca',
        apiKey: KEY,
        variant: 1,
        webhookUrl: 'http://127.0.0.1:9/hooks',
        webhookSecret: SECRET,
      },
    ],
    mode: 'sandbox',
  });
  const b1 = await exchange(
    1,
    'POST',
    `${server.baseUrl}/api/v1/public/partner/transactions`,
    { 'content-type': 'application/json', 'x-service-key': KEY },
    JSON.stringify({ customerPhone: '212612345678', total: 600, currency: 'MAD', items: [{ name: 'Lamp', quantity: 2, unitPrice: 300 }] }),
  );
  const id = (JSON.parse(b1.responseText) as { id: string }).id;
  const b2 = await exchange(2, 'GET', `${server.baseUrl}/api/v1/public/partner/transactions/${id}`, { 'x-api-key': KEY });
  expect([b1.status, b2.status]).toEqual([201, 200]);
  // the read answers another total than the create did: a contradiction the judge names on B2
  b2.responseText = b2.responseText.replace('"totalAmount":600', '"totalAmount":600.01');
  story = [b1, b2];
});
afterAll(async () => {
  await server?.close();
});

const file = (name: string, data: string | Buffer): string => {
  const f = path.join(dir, name);
  writeFileSync(f, data);
  return f;
};

describe('the HAR dialects', () => {
  const dialects: [string, () => Buffer][] = [
    ['Chromium devtools', () => Buffer.from(JSON.stringify(chromeDevtools(story)))],
    ['Playwright recordHar (embed)', () => Buffer.from(JSON.stringify(playwrightEmbed(story)))],
    ['Playwright recordHar (.zip, attach)', () => playwrightZip(story)],
    ['mitmproxy save.har', () => Buffer.from(JSON.stringify(mitmproxy(story)))],
    ['k6 Studio', () => Buffer.from(JSON.stringify(k6Studio(story)))],
    ['paylater proxy --har (masked)', () => Buffer.from(JSON.stringify(proxyHar(story)))],
  ];

  for (const [name, write] of dialects)
    it(`${name}: the API's exchanges read as recorded, and judged to the same finding on B2`, async () => {
      const read = parseHar(write(), `${name}.har`);
      const origin = new URL(server.baseUrl).origin;
      const api = read.exchanges.filter((x) => new URL(x.url).origin === origin && x.url.includes('/api/'));
      expect(api.map((x) => [x.method, x.url, x.status])).toEqual(story.map((x) => [x.method, x.url, x.status]));
      for (const [i, x] of api.entries()) {
        const want = story[i]!;
        expect(JSON.parse(x.responseText)).toEqual(JSON.parse(want.responseText));
        expect(x.body === undefined ? undefined : JSON.parse(x.body)).toEqual(want.body === undefined ? undefined : JSON.parse(want.body));
        expect(x.responseHeaders['content-type']).toBe(want.responseHeaders['content-type']);
        // the key as sent, or its mask (paylater proxy --har)
        const cred = x.headers['x-service-key'] ?? x.headers['x-api-key'];
        expect([KEY, mask(KEY)]).toContain(cred);
        expect(Object.keys(x.headers).every((k) => k === k.toLowerCase() && !k.startsWith(':'))).toBe(true);
        // times to the millisecond as every writer keeps them (µs where the writer keeps them)
        expect(Math.abs(x.sentAt - want.sentAt)).toBeLessThan(1);
        expect(Math.abs(x.receivedAt - want.receivedAt)).toBeLessThan(1.001);
      }
      const judged = await judgeRecorded(read);
      expect(judged.findings.map((f) => [f.kind, f.operation])).toEqual([['contradiction', 'getPartnerTransaction']]);
      expect(read.exchanges.find((x) => x.seq === judged.findings[0]!.exchanges.at(-1))?.url).toBe(story[1]!.url);
      if (name === 'Chromium devtools') {
        // the page, the script and the other hosts' calls counted, not judged; the cancelled request without an answer
        expect(judged.otherHosts).toBe(2);
        expect(judged.judge.coverage().unrouted).toBe(2);
        expect(read.unanswered.map((u) => u.method)).toHaveLength(1);
      }
    });

  it('a value the recording masked (the webhook secret) is not judged against its schema', async () => {
    const endpoint = await exchange(3, 'GET', `${server.baseUrl}/api/v1/sandbox/webhook-endpoint`, { 'x-api-key': KEY });
    expect(JSON.parse(endpoint.responseText)).toMatchObject({ secret: SECRET });
    const read = parseHar(Buffer.from(JSON.stringify(proxyHar([endpoint]))), 'endpoint.har');
    expect(read.exchanges[0]!.responseText).toMatch(/"secret":"MASKED_[0-9a-f]{8}"/);
    expect((await judgeRecorded(read)).findings).toEqual([]);
    // the judge itself holds the masked secret to the schema's pattern: the ear leaves that finding out
    expect(
      createJudge({ timeOrigin: 0 })
        .exchange(read.exchanges[0]!)
        .map((f) => f.jsonPath),
    ).toEqual(['$.secret']);
  });

  it('a request member the recording masked (the secret a PUT of the webhook endpoint sets) is not judged against its schema', async () => {
    const url = `${server.baseUrl}/api/v1/sandbox/webhook-endpoint`;
    const before = await exchange(4, 'GET', url, { 'x-api-key': KEY });
    const { url: hook } = JSON.parse(before.responseText) as { url: string };
    const put = await exchange(
      5,
      'PUT',
      url,
      { 'x-api-key': KEY, 'content-type': 'application/json' },
      JSON.stringify({ url: hook, secret: SECRET }),
    );
    expect(put.status).toBe(200);
    const read = parseHar(Buffer.from(JSON.stringify(proxyHar([put]))), 'put.har');
    expect(read.exchanges[0]!.body).toMatch(/"secret":"MASKED_[0-9a-f]{8}"/);
    expect((await judgeRecorded(read)).findings.map((f) => f.message)).toEqual([]);
    // the same request with a secret the contract refuses, answered 200, is still a finding
    const refused = { ...read.exchanges[0]!, body: JSON.stringify({ url: hook, secret: 'not-a-secret' }) };
    expect((await judgeRecorded({ exchanges: [refused] })).findings.map((f) => f.kind)).toEqual(['request']);
    // and so is one that also sends a url of the wrong type, the secret masked
    const wrongUrl = { ...read.exchanges[0]!, body: read.exchanges[0]!.body!.replace(/"url":"[^"]*"/, '"url":42') };
    expect((await judgeRecorded({ exchanges: [wrongUrl] })).findings.map((f) => f.kind)).toEqual(['request']);
  });

  it("a body over the proxy's capture limit is left out of its HAR, and judged offline as live: on its status only", async () => {
    const proxy = await startLiveProxy({ upstream: server.baseUrl, variant: 1, captureBytes: 64 });
    try {
      const b1 = JSON.stringify({
        customerPhone: '212612345678',
        total: 600,
        currency: 'MAD',
        items: [{ name: 'Lamp', quantity: 2, unitPrice: 300 }],
      });
      const res = await fetch(`${proxy.url}/api/v1/public/partner/transactions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-key': KEY },
        body: b1,
      });
      expect(res.status).toBe(201);
      expect((await res.text()).length).toBeGreaterThan(64);
    } finally {
      await proxy.close();
    }
    const read = parseHar(Buffer.from(JSON.stringify(proxy.recorder.har())), 'capture.har');
    expect(read.exchanges.map((x) => [x.status, x.body, x.requestTruncated, x.responseText, x.responseTruncated])).toEqual([
      [201, undefined, true, '', true],
    ]);
    expect(proxy.recorder.findings).toEqual([]);
    expect((await judgeRecorded(read)).findings).toEqual([]);
  });

  it('a time keeps its microseconds (ISO 8601 with any fraction and offset), and one written with them reads back', () => {
    expect(instant('2021-02-03T07:48:12.959123+00:00')).toBeCloseTo(Date.UTC(2021, 1, 3, 7, 48, 12) + 959.123, 3);
    expect(instant('2021-02-03T08:48:12.5+0100')).toBe(Date.UTC(2021, 1, 3, 7, 48, 12) + 500);
    expect(instant('2021-02-03 07:48:12')).toBeUndefined();
    const t = Date.UTC(2024, 4, 5, 6, 7, 8) + 123.456;
    expect(isoMicro(t)).toBe('2024-05-05T06:07:08.123456Z');
    expect(instant(isoMicro(t))).toBeCloseTo(t, 3);
  });
});

describe('a damaged or foreign file is refused, naming it', () => {
  const har = (entries: unknown[], version = '1.2') => JSON.stringify({ log: { version, creator: { name: 't' }, entries } });
  const ok = { startedDateTime: '2024-01-01T00:00:00.000Z', time: 1 };
  const cases: [string, string | Buffer, RegExp][] = [
    ['not JSON', '<html>not a har</html>', /: not JSON \(.*\), so not a HAR file$/],
    ['no log.entries', JSON.stringify({ version: '2.0.0', entries: [] }), /: not a HAR file: no log\.entries$/],
    ['another version', har([], '2.0.0'), /: a HAR of version "2\.0\.0"; versions 1\.1 and 1\.2 are read$/],
    ['an entry without a request', har([{ ...ok, response: { status: 200 } }]), /: entry 1 has no request$/],
    ['an entry without a response', har([{ ...ok, request: { method: 'GET', url: 'http://h/x' } }]), /: entry 1 has no response$/],
    [
      'an entry without a start',
      har([{ request: { method: 'GET', url: 'http://h/x' }, response: { status: 200 } }]),
      /: entry 1 has no ISO 8601 startedDateTime/,
    ],
    [
      'headers that are not a list',
      har([{ ...ok, request: { method: 'GET', url: 'http://h/x', headers: { a: 'b' } }, response: { status: 200 } }]),
      /: entry 1 request\.headers is not an array$/,
    ],
    ['a damaged zip', Buffer.from('PK\u0003\u0004 cut short'), /: a zip file without its central directory$/],
  ];
  for (const [what, data, message] of cases)
    it(`${what}: exit 2, one line naming the file, no stack`, async () => {
      const f = file(`${what.replace(/\W+/g, '-')}.har`, data);
      const errs: string[] = [];
      expect(
        await runJudge(
          [f],
          () => {},
          (s) => errs.push(s),
        ),
      ).toBe(2);
      expect(errs).toHaveLength(1);
      expect(errs[0]).toMatch(new RegExp(`^paylater judge: ${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
      expect(errs[0]).toMatch(message);
      expect(errs[0]).not.toMatch(/\n\s+at /);
    });

  it('a file that is not there', async () => {
    const errs: string[] = [];
    expect(
      await runJudge(
        [path.join(dir, 'absent.har')],
        () => {},
        (s) => errs.push(s),
      ),
    ).toBe(2);
    expect(errs[0]).toMatch(/absent\.har: cannot read \(ENOENT\)$/);
    expect(() => readHar(path.join(dir, 'absent.har'))).toThrow(/absent\.har/);
  });
});

describe('paylater judge, the command', () => {
  it('--help documents every option and the exit codes; paylater --help lists the command', async () => {
    for (const name of Object.keys(OPTIONS)) expect(HELP).toMatch(new RegExp(`^  --${name}\\b`, 'm'));
    expect(HELP).toMatch(/Exit codes:\n {2}0 {2}no finding\n {2}1 {2}at least one finding[^\n]*\n {2}2 {2}/);
    const out: string[] = [];
    expect(await runJudge(['--help'], (s) => out.push(s))).toBe(0);
    expect(out.join('\n')).toBe(HELP);
    expect(await paylaterUsage()).toMatch(/^ {2}judge {5}.*paylater judge --help$/m);
  });

  it('refuses bad usage with exit 2 and one line', async () => {
    const f = file('usage.har', JSON.stringify(playwrightEmbed(story)));
    const errs: string[] = [];
    const e = (s: string) => errs.push(s);
    expect(await runJudge([], () => {}, e)).toBe(2);
    expect(await runJudge([f, f], () => {}, e)).toBe(2);
    expect(await runJudge([f, '--variant', '3'], () => {}, e)).toBe(2);
    expect(await runJudge([f, '--replay'], () => {}, e)).toBe(2);
    expect(await runJudge([f, '--base-url', server.baseUrl], () => {}, e)).toBe(2);
    expect(await runJudge([f, '--clock-tolerance', '-1'], () => {}, e)).toBe(2);
    expect(await runJudge([f, '--bogus'], () => {}, e)).toBe(2);
    expect(errs).toHaveLength(7);
    expect(errs.every((l) => l.startsWith('paylater judge: '))).toBe(true);
  });

  it('with a finding: exit 1, the finding in text, JSON and JUnit, keys masked; without: exit 0', async () => {
    const f = file('chrome.har', JSON.stringify(chromeDevtools(story)));
    const json = path.join(dir, 'judge.json');
    const junit = path.join(dir, 'judge.xml');
    const out: string[] = [];
    expect(await runJudge([f, '--report-json', json, '--report-junit', junit], (s) => out.push(s))).toBe(1);
    const text = out.join('\n');
    expect(text).toContain('--- finding 1 (contradiction): getPartnerTransaction $');
    expect(text).toMatch(
      /: 7 entries: 2 operations judged, 2 not an operation, 0 webhook deliveries, 2 of other hosts, 1 without an answer; 1 finding\(s\)/,
    );
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      tool: string;
      exitCode: number;
      findingList: { kind: string; exchanges: { n: number; url: string; startedAt: string }[]; curl: string }[];
    };
    expect(report.tool).toBe('paylater judge');
    expect(report.exitCode).toBe(1);
    expect(report.findingList[0]!.kind).toBe('contradiction');
    expect(report.findingList[0]!.exchanges.map((x) => x.url)).toEqual(story.map((x) => x.url));
    expect(report.findingList[0]!.exchanges[0]!.startedAt).toBe(isoMicro(Math.floor(story[0]!.sentAt)));
    expect(report.findingList[0]!.curl).toMatch(/^#!\/usr\/bin\/env bash\n# Replays the exchanges the recording holds/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('failures="1"');
    expect(xml).toContain('name="contradiction: getPartnerTransaction $"');
    for (const t of [text, JSON.stringify(report), xml]) expect(t).not.toContain(KEY);

    const clean = file('clean.har', JSON.stringify(playwrightEmbed(story.slice(0, 1))));
    const lines: string[] = [];
    expect(await runJudge([clean, '--quiet'], (s) => lines.push(s))).toBe(0);
    expect(lines.join('\n')).toMatch(/1 operations judged.*; 0 finding\(s\)/);
  });
});
