/**
 * Never a hang: `paylater conform` as a process (through tsx) exits within 5 s of its summary on
 * every path: a finding in each phase (setup, the probes, the random search, the coverage tour, the
 * sandbox scenarios, the webhook retry schedule, coverage), a server that stops answering, a setup
 * error with the webhook receiver open, SIGINT and SIGTERM. Its exit safety net (scripts/paylater.ts)
 * must never have fired: the suite closes every listener, socket and timer itself.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { freePort } from '../lib/free-port.ts';
import { ROOT } from '../scripts/lib/paths.ts';
import { EXIT } from '../lib/commands.ts';
import { mutants } from './mutants/catalog.ts';
import { withJson, type Mutant } from './mutants/proxy.ts';
import { startRelay } from './mutants/selftest.ts';
import type { SuiteResult } from './run.ts';

/** The longest a run may take to exit after printing its summary. */
const EXIT_WITHIN_MS = 5000;
const SECRET = `whsec_${randomBytes(24).toString('base64')}`;
const CASES = 13;
/** Runs of the CLI at once (the cases are concurrent; the box has 2 cores, shared). */
const AT_ONCE = 3;
/** Each case's time limit: a sandbox run on a busy machine, after waiting for its slot (the cases start at once). */
const CASE_MS = 300_000;

let running = 0;
const queue: (() => void)[] = [];
async function slot<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= AT_ONCE) await new Promise<void>((r) => queue.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    queue.shift()?.();
  }
}

let server: TestServer;
const pairs: { main: string; other: string; relayPort: number }[] = [];

beforeAll(async () => {
  for (let i = 0; i < CASES; i++)
    pairs.push({
      main: `sk_test_hang_m${i}_${randomBytes(6).toString('hex')}`,
      other: `sk_test_hang_o${i}_${randomBytes(6).toString('hex')}`,
      relayPort: await freePort(),
    });
  server = await startTestServer({
    mode: 'sandbox',
    merchants: pairs.flatMap((p, i) => [
      {
        name: `Hang ${i}`,
        storeName: `Hang ${i}`,
        apiKey: p.main,
        variant: 1 as const,
        webhookUrl: `http://127.0.0.1:${p.relayPort}/relay`,
        webhookSecret: SECRET,
      },
      { name: `Other ${i}`, storeName: `Other ${i}`, apiKey: p.other, variant: 1 as const },
    ]),
  });
});
afterAll(async () => server?.close());

const byName = (name: string): Mutant => {
  const m = mutants.find((x) => x.name === name);
  if (!m) throw new Error(`no mutant ${name}`);
  return m;
};

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** ms from the summary's last line (`seed: N`) to the process's exit. */
  afterSummaryMs: number;
  report: SuiteResult | undefined;
}

/**
 * Runs `paylater conform` through the mutant `mutant` (merchant pair `i`, sandbox profile with the
 * webhook receiver unless told), until it exits; `onLine` sees each stdout line as it comes.
 */
async function conform(
  i: number,
  mutant: Mutant,
  args: string[],
  opts: { profile?: 'core' | 'sandbox'; webhookPort?: number; onLine?: (line: string, child: ReturnType<typeof spawn>) => void } = {},
): Promise<Outcome> {
  return slot(() => conformNow(i, mutant, args, opts));
}

async function conformNow(
  i: number,
  mutant: Mutant,
  args: string[],
  opts: { profile?: 'core' | 'sandbox'; webhookPort?: number; onLine?: (line: string, child: ReturnType<typeof spawn>) => void },
): Promise<Outcome> {
  const p = pairs[i]!;
  const receiverPort = opts.webhookPort ?? (await freePort());
  const relay = await startRelay(p.relayPort, receiverPort, mutant, server.baseUrl, p, SECRET);
  const dir = mkdtempSync(path.join(tmpdir(), 'no-hang-'));
  const profile = opts.profile ?? 'sandbox';
  try {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        path.join(ROOT, 'scripts', 'paylater.ts'),
        'conform',
        '--base-url',
        relay.url,
        '--api-key',
        p.main,
        '--other-api-key',
        p.other,
        '--profile',
        profile,
        ...(profile === 'sandbox' ? ['--webhook-port', String(receiverPort), '--webhook-secret', SECRET] : []),
        '--report-json',
        path.join(dir, 'r.json'),
        ...args,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    let summaryAt: number | undefined;
    let pending = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      pending += d;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) {
        if (/^seed: -?\d+$/.test(line)) summaryAt = performance.now();
        opts.onLine?.(line, child);
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
      child.on('exit', (c, s) => resolve([c, s])),
    );
    const exitedAt = performance.now();
    let report: SuiteResult | undefined;
    try {
      report = JSON.parse(readFileSync(path.join(dir, 'r.json'), 'utf8')) as SuiteResult;
    } catch {
      report = undefined;
    }
    return { code, signal, stdout, stderr, afterSummaryMs: summaryAt === undefined ? NaN : exitedAt - summaryAt, report };
  } finally {
    await relay.close();
  }
}

/** The run printed its summary and exited within EXIT_WITHIN_MS of it, by itself (the safety net never fired). */
function exitedPromptly(o: Outcome): void {
  const context = `${o.stderr}\n${o.stdout.slice(-3000)}`;
  expect(o.stderr, context).not.toMatch(/still running .* after the run ended/);
  expect(o.afterSummaryMs, context).toBeLessThan(EXIT_WITHIN_MS);
  expect(o.afterSummaryMs, context).toBeGreaterThanOrEqual(0);
}

const phaseOf = (r: SuiteResult | undefined): string[] => (r?.findings ?? []).map((f) => `${f.phase}: ${f.commands.at(-1) ?? ''}`);

describe.concurrent('paylater conform never hangs', () => {
  it(
    'a finding while setting up (core)',
    async () => {
      const o = await conform(0, byName('404 answered with code NOT_FOUND'), ['--runs', '2', '--seed', '1'], { profile: 'core' });
      expect(o.code, o.stderr).toBe(EXIT.findings);
      expect(o.report!.findings[0]!.phase).toBe('setup');
      exitedPromptly(o);
    },
    CASE_MS,
  );

  it(
    'a finding in the probes (sandbox, receiver open), then the later phases run to their end',
    async () => {
      const o = await conform(1, byName('HEAD not served (404)'), ['--runs', '2', '--seed', '5']);
      expect(o.code, o.stderr).toBe(EXIT.findings);
      expect(o.report!.findings[0]!.commands.at(-1)).toMatch(/^headProbe/);
      expect(o.stdout).toMatch(/webhook retry schedule passed/);
      exitedPromptly(o);
    },
    CASE_MS,
  );

  it(
    'a finding in the random search (sandbox)',
    async () => {
      const o = await conform(2, byName('duplicate vendorReference accepted'), ['--runs', '20', '--seed', '7']);
      expect(o.code, o.stderr).toBe(EXIT.findings);
      expect(phaseOf(o.report)).toContainEqual(expect.stringMatching(/^property: /));
      exitedPromptly(o);
    },
    CASE_MS,
  );

  it(
    'a finding in the sandbox scenarios, and coverage findings after it',
    async () => {
      const o = await conform(3, byName('sandbox magic phone ignored (the transaction stays PENDING)'), ['--runs', '2', '--seed', '3']);
      expect(o.code, o.stderr).toBe(EXIT.findings);
      expect(phaseOf(o.report)).toContain('tour: sandbox scenarios');
      exitedPromptly(o);
    },
    CASE_MS,
  );

  it(
    'a finding in the coverage tour, and coverage findings for what it could not reach',
    async () => {
      // the sandbox's complete step refused: the tour stops there, and the transition is never exercised
      const noComplete: Mutant = {
        name: 'complete answered 404',
        profile: 'sandbox',
        onRequest: (req) =>
          Promise.resolve(
            req.method === 'POST' && /\/complete$/.test(req.path)
              ? {
                  status: 404,
                  headers: { 'content-type': 'application/json' },
                  body: '{"error":{"code":"TRANSACTION_NOT_FOUND","message":"Transaction not found"}}',
                }
              : undefined,
          ),
      };
      const o = await conform(12, noComplete, ['--runs', '2', '--seed', '13']);
      expect(o.code, o.stderr).toBe(EXIT.findings);
      const phases = phaseOf(o.report);
      expect(phases).toContainEqual(expect.stringMatching(/^tour: /));
      expect(phases).toContainEqual(expect.stringMatching(/^coverage: /));
      exitedPromptly(o);
    },
    CASE_MS,
  );

  it(
    'a finding in the webhook retry schedule',
    async () => {
      const o = await conform(4, byName('webhook retries stop after the first failed attempt'), ['--runs', '2', '--seed', '4']);
      expect(o.code, o.stderr).toBe(EXIT.findings);
      expect(phaseOf(o.report)).toContain('tour: webhook retry schedule');
      exitedPromptly(o);
    },
    CASE_MS,
  );

  it(
    "a finding at the retry schedule's first request (its receiver just opened)",
    async () => {
      // The endpoint read back in another shape by the schedule's first request: the retry checks fail
      // before they point it anywhere. Only that read: the judge checks every answer's shape, so the
      // same answer to an earlier read (the setup's witnesses, the tour's) is a finding there instead.
      // The run logs the line below just before that read, and the relay rewrites an answer only
      // once the server gave it, so the line has been seen by then.
      let armed = false;
      const endpointShape: Mutant = {
        name: "webhook endpoint read without its url by the retry schedule's first request",
        profile: 'sandbox',
        async onResponse(req, res) {
          if (!armed || req.method !== 'GET' || req.path !== '/api/v1/sandbox/webhook-endpoint' || res.status !== 200) return res;
          armed = false;
          return withJson(res, { enabled: true });
        },
      };
      const o = await conform(5, endpointShape, ['--runs', '2', '--seed', '6'], {
        onLine: (line) => {
          if (/^webhook retry schedule: the endpoint points at the suite/.test(line)) armed = true;
        },
      });
      expect(o.code, o.stderr).toBe(EXIT.findings);
      expect(phaseOf(o.report)).toContain('tour: webhook retry schedule');
      // at that read, and nothing before it
      expect(o.report!.findings.map((f) => `${f.phase}: ${f.operation} ${f.jsonPath}`)).toEqual(['tour: sandboxGetWebhookEndpoint $']);
      exitedPromptly(o);
    },
    CASE_MS,
  );

  it(
    'a server that stops answering: a finding naming the request, and the run ends',
    async () => {
      let n = 0;
      const stops: Mutant = {
        name: 'stops answering after 40 requests',
        profile: 'sandbox',
        onRequest: () => (++n > 40 ? new Promise(() => {}) : Promise.resolve(undefined)),
      };
      const o = await conform(6, stops, ['--runs', '5', '--seed', '8', '--timeout', '2']);
      expect(o.code, o.stderr).toBe(EXIT.findings);
      expect(o.report!.findings).toHaveLength(1);
      expect(o.report!.findings[0]!.message).toMatch(/was not answered within 2 s: the server stopped answering/);
      exitedPromptly(o);
    },
    CASE_MS,
  );

  it(
    'a setup error with the webhook receiver open (the two keys one merchant): exit 2',
    async () => {
      const oneMerchant: Mutant = {
        name: 'every transaction of one merchant and store',
        profile: 'sandbox',
        async onResponse(req, res) {
          if (req.method !== 'POST' || res.status !== 201) return res;
          const body = JSON.parse(res.body) as Record<string, unknown>;
          return 'merchantName' in body ? withJson(res, { ...body, merchantName: 'One', storeName: 'One' }) : res;
        },
      };
      const o = await conform(7, oneMerchant, ['--runs', '2', '--seed', '9']);
      expect(o.code, o.stdout + o.stderr).toBe(EXIT.setup);
      expect(o.stdout).toMatch(/webhook receiver on 127\.0\.0\.1/);
      expect(o.stderr).toMatch(/belong to one merchant/);
      expect(o.stderr).not.toMatch(/still running/);
    },
    CASE_MS,
  );

  it(
    'a webhook port already in use is a setup error (exit 2), not a crash',
    async () => {
      const taken: Server = createServer();
      await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
      try {
        const port = (taken.address() as { port: number }).port;
        const o = await conform(8, byName('HEAD not served (404)'), ['--runs', '2'], { webhookPort: port });
        expect(o.code, o.stderr).toBe(EXIT.setup);
        expect(o.stderr).toMatch(new RegExp(`cannot listen on 127.0.0.1:${port}`));
      } finally {
        await new Promise((r) => taken.close(r));
      }
    },
    CASE_MS,
  );

  it.each([
    ['SIGINT', EXIT.sigint, 9, /^property: /],
    ['SIGTERM', EXIT.sigterm, 10, /^property: /],
  ] as const)(
    '%s during the random search: summary, exit %i, the sandbox set back',
    async (sig, code, i, when) => {
      let sentAt: number | undefined;
      const o = await conform(i, byName('HEAD not served (404)'), ['--runs', '200', '--seed', '11'], {
        onLine: (line, child) => {
          if (sentAt === undefined && when.test(line)) {
            sentAt = performance.now();
            setTimeout(() => child.kill(sig), 300);
          }
        },
      });
      expect(o.code, o.stderr).toBe(code);
      expect(o.signal).toBeNull();
      expect(o.stdout).toMatch(new RegExp(`INTERRUPTED by ${sig}`));
      expect(o.stdout).toMatch(/sandbox reset: clock back to real time/);
      // the finding before the signal is reported
      expect(o.report!.findings[0]!.commands.at(-1)).toMatch(/^headProbe/);
      expect(o.report!.interrupted).toBe(sig);
      exitedPromptly(o);
    },
    CASE_MS,
  );

  it(
    'SIGTERM while the retry schedule points the webhook endpoint at the suite: set back before exit',
    async () => {
      const p = pairs[11]!;
      const o = await conform(11, byName('HEAD not served (404)'), ['--runs', '2', '--seed', '12'], {
        onLine: (line, child) => {
          // inside the schedule's first second of real-time waiting
          if (/^webhook retry schedule: the endpoint points at the suite/.test(line)) setTimeout(() => child.kill('SIGTERM'), 300);
        },
      });
      expect(o.code, o.stderr).toBe(EXIT.sigterm);
      // stopped inside the retry schedule, which had pointed the endpoint at its own receiver
      expect(o.stdout).not.toMatch(/webhook retry schedule passed/);
      exitedPromptly(o);
      const ep = await fetch(`${server.baseUrl}/api/v1/sandbox/webhook-endpoint`, { headers: { 'X-Api-Key': p.main } });
      expect(((await ep.json()) as { url: string }).url).toBe(`http://127.0.0.1:${p.relayPort}/relay`);
    },
    CASE_MS,
  );
});
