import { mkdtempSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runServe, SERVE_USAGE } from './cli.ts';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'paylater-cli-'));

async function serve(argv: string[]) {
  let out = '';
  let err = '';
  const ac = new AbortController();
  const done = runServe(argv, { out: (s) => (out += s), err: (s) => (err += s), signal: ac.signal });
  return {
    done,
    ac,
    get out() {
      return out;
    },
    get err() {
      return err;
    },
  };
}

describe('paylater serve', () => {
  it('--help prints the usage and exits 0', async () => {
    const r = await serve(['--help']);
    expect(await r.done).toBe(0);
    expect(r.out).toBe(SERVE_USAGE);
  });
  it.each([[['--port', 'x']], [['--mode', 'staging']], [['--payment-window', 'soon']], [['--data', 'a.json', '--memory']], [['--bogus']]])(
    'bad arguments %j → exit 2 with a message',
    async (argv) => {
      const r = await serve(argv);
      expect(await r.done).toBe(2);
      expect(r.err).toMatch(/paylater serve: /);
    },
  );
  it('refuses a payment window past maxSeconds (ADR-010) with the bound in the message, and accepts the bound itself', async () => {
    const r = await serve(['--payment-window', '99999999999999', '--memory', '--port', '0']);
    expect(await r.done).toBe(2);
    expect(r.err).toMatch(/--payment-window: at most 2592000 s \(30 days\), got "99999999999999"/);
    const ok = await serve(['--payment-window', '720h', '--memory', '--port', '0']);
    for (let i = 0; i < 100 && !ok.out.includes('Payment window'); i++) await new Promise((res) => setTimeout(res, 50));
    expect(ok.out).toContain('Payment window: 2592000 s');
    ok.ac.abort();
    expect(await ok.done).toBe(0);
  });
  it.each([
    ['not JSON', '{nope', /not valid JSON/],
    [
      'unknown field',
      JSON.stringify([{ name: 'A', storeName: 'B', apiKey: 'sk_test_abcdefgh12ijklmnop3456qr', variant: 1, colour: 'red' }]),
      /unknown field "colour"/,
    ],
    [
      'bad variant',
      JSON.stringify([{ name: 'A', storeName: 'B', apiKey: 'sk_test_abcdefgh12ijklmnop3456qr', variant: 3 }]),
      /"variant" must be 1 or 2/,
    ],
    ['bad key', JSON.stringify([{ name: 'A', storeName: 'B', apiKey: 'key123', variant: 1 }]), /sk_test_/],
    [
      'a test key of 8 characters (ADR-027)',
      JSON.stringify([{ name: 'A', storeName: 'B', apiKey: 'sk_test_abcdefgh', variant: 1 }]),
      /at least 24 random/,
    ],
    [
      'a live key of 23 characters (ADR-027)',
      JSON.stringify([{ name: 'A', storeName: 'B', apiKey: 'sk_live_abcdefghijklmnopqrstuvw', variant: 1 }]),
      /at least 24 random/,
    ],
    [
      'bad origin',
      JSON.stringify([{ name: 'A', storeName: 'B', apiKey: 'sk_test_abcdefgh12ijklmnop3456qr', variant: 1, allowedOrigins: ['shop'] }]),
      /allowedOrigins\[0\]/,
    ],
    [
      'a private webhook URL (ADR-018)',
      JSON.stringify([
        { name: 'A', storeName: 'B', apiKey: 'sk_test_abcdefgh12ijklmnop3456qr', variant: 1, webhookUrl: 'https://10.0.0.8/hooks' },
      ]),
      /merchant "A": "webhookUrl" .*private/,
    ],
    [
      'a decimal-encoded metadata webhook URL',
      JSON.stringify([
        { name: 'A', storeName: 'B', apiKey: 'sk_test_abcdefgh12ijklmnop3456qr', variant: 1, webhookUrl: 'http://2852039166/latest' },
      ]),
      /merchant "A": "webhookUrl"/,
    ],
    [
      'plain http to a public host',
      JSON.stringify([
        { name: 'A', storeName: 'B', apiKey: 'sk_test_abcdefgh12ijklmnop3456qr', variant: 1, webhookUrl: 'http://hooks.example/paylater' },
      ]),
      /https/,
    ],
  ])('--merchants with %s → exit 2, clear message', async (_n, text, msg) => {
    const f = path.join(tmp(), 'm.json');
    writeFileSync(f, text);
    const r = await serve(['--memory', '--merchants', f, '--port', '0']);
    expect(await r.done).toBe(2);
    expect(r.err).toMatch(msg);
    expect(r.err).not.toContain('sk_test_abcdefgh12ijklmnop3456qr');
  });
  it('a corrupt data file stops the start with the file named (exit 1)', async () => {
    const f = path.join(tmp(), 'data.json');
    writeFileSync(f, '{"broken":');
    const r = await serve(['--data', f, '--port', '0']);
    expect(await r.done).toBe(1);
    expect(r.err).toContain(f);
  });
  it('starts, creates the data file, prints base URL, docs URL and demo merchants with their keys', async () => {
    const f = path.join(tmp(), 'nested', 'paylater.db');
    const r = await serve(['--data', f, '--port', '0', '--payment-window', '15m']);
    for (let i = 0; i < 100 && !r.out.includes('Souk'); i++) await new Promise((res) => setTimeout(res, 50));
    const base = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(r.out)?.[1];
    expect(base).toBeDefined();
    expect(r.out).toContain(`Docs: ${base}/docs`);
    expect(r.out).toContain('Atlas Electronics (Atlas Casablanca), Variant 1, test API key: sk_test_v1_demo_4f7c2a9e1b3d5f60');
    expect(r.out).toContain('Souk Digital (Souk Digital Rabat), Variant 2, test API key: sk_test_v2_demo_8b1e6d3c5a7f9e20');
    // each demo merchant's signing secret, so a local receiver can verify its deliveries (ADR-042)
    expect(r.out).toContain('signing secret: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(r.out).toContain('signing secret: whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD');
    expect(r.out).toContain('Payment window: 900 s');
    expect(existsSync(f)).toBe(true);
    const clock = await fetch(`${base}/api/v1/sandbox/clock`, { headers: { 'X-API-Key': 'sk_test_v1_demo_4f7c2a9e1b3d5f60' } });
    expect(clock.status).toBe(200);
    r.ac.abort();
    expect(await r.done).toBe(0);
  });
});
