/**
 * The mutation self-test machinery, shared by the vitest self-test and `npm run bench`: one
 * server (started by the caller, black-box: any server honouring the merchant list), one mutating
 * proxy per mutant in front of it, the suite run through the proxy with its default number of runs.
 */
import { stateMachine } from '../../generated/contract.ts';
import { randomBytes } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { freePort } from '../../lib/free-port.ts';
import { DEFAULT_RUNS } from '../cli.ts';
import { runSuite, type SuiteResult } from '../run.ts';
import { mutants } from './catalog.ts';
import { startProxy, type Mutant } from './proxy.ts';

export interface MerchantSpec {
  name: string;
  storeName: string;
  apiKey: string;
  variant: 1 | 2;
  webhookUrl?: string;
  webhookSecret?: string;
}

/** Starts a server (sandbox mode) knowing these merchants. */
export type StartServer = (merchants: MerchantSpec[]) => Promise<{ baseUrl: string; close(): Promise<void> }>;

export interface MutantResult {
  name: string;
  profile: 'core' | 'sandbox';
  findings: number;
  /** ms from the start of the run to the first finding; null when not found. */
  firstFindingMs: number | null;
  /** Who found it first: the random model-based search or the fixed coverage tour. */
  phase: 'property' | 'tour' | 'coverage' | 'setup' | null;
  shrunkLength: number;
  commands: string[];
  message: string;
  result: SuiteResult;
}

/** Per-run settings of the self-test; the defaults are the suite's defaults with a short webhook timeout. */
export interface MutantRunOptions {
  seed?: number;
  webhookTimeoutMs?: number;
  /** Sees the suite's progress lines (phases and their outcome). */
  log?: (line: string) => void;
}

export async function prepareMutantSelfTest(
  startServer: StartServer,
  list: Mutant[] = mutants,
  setup: { variant?: 1 | 2 } = {},
): Promise<{ run(i: number, runs?: number, o?: MutantRunOptions): Promise<MutantResult>; close(): Promise<void> }> {
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const variant = setup.variant ?? 1;
  const relayPorts: number[] = [];
  const keys: { main: string; other: string }[] = [];
  const merchants: MerchantSpec[] = [];
  for (let i = 0; i < list.length; i++) {
    relayPorts.push(await freePort());
    keys.push({
      main: `sk_test_mut_main_${i}_${randomBytes(6).toString('hex')}`,
      other: `sk_test_mut_other_${i}_${randomBytes(6).toString('hex')}`,
    });
    // the merchant's webhook URL is a relay port: it forwards to the mutant proxy's webhook hook
    merchants.push({
      name: `Mutant ${i}`,
      storeName: `Store ${i}`,
      apiKey: keys[i]!.main,
      variant: list[i]!.variant ?? variant,
      webhookUrl: `http://127.0.0.1:${relayPorts[i]!}/relay`,
      webhookSecret: secret,
    });
    merchants.push({ name: `Other ${i}`, storeName: `Other ${i}`, apiKey: keys[i]!.other, variant: list[i]!.variant ?? variant });
  }
  const server = await startServer(merchants);
  return {
    async run(i, runs = DEFAULT_RUNS, o: MutantRunOptions = {}) {
      const mutant = list[i]!;
      const receiverPort = await freePort();
      const relay = await startRelay(relayPorts[i]!, receiverPort, mutant, server.baseUrl, keys[i]!, secret);
      try {
        const r = await runSuite({
          baseUrl: relay.url,
          apiKey: keys[i]!.main,
          otherApiKey: keys[i]!.other,
          variant: mutant.variant ?? variant,
          profile: mutant.profile,
          runs,
          seed: o.seed ?? 1000 + i,
          paymentWindowSeconds: stateMachine.paymentWindow.defaultSeconds,
          webhookPort: receiverPort,
          webhookSecret: secret,
          webhookGraceMs: 60,
          webhookTimeoutMs: o.webhookTimeoutMs ?? 1000,
          timeLimitMs: 30_000,
          // the self-test asks whether, when and how small a fault is found: nothing after the first finding
          bail: true,
          log: o.log,
        });
        const f = r.findings[0];
        return {
          name: mutant.name,
          profile: mutant.profile,
          findings: r.findings.length,
          firstFindingMs: r.firstFindingMs,
          phase: f?.phase ?? null,
          shrunkLength: f?.commands.length ?? 0,
          commands: f?.commands ?? [],
          message: f?.message ?? '',
          result: r,
        };
      } finally {
        await relay.close();
      }
    },
    close: () => server.close(),
  };
}

export function describeResult(m: MutantResult, runs = DEFAULT_RUNS): string {
  const by = m.phase === 'property' ? 'random search' : m.phase === 'tour' ? 'coverage tour' : (m.phase ?? 'NOT FOUND');
  return `${m.name}: found by ${by}, first after ${((m.firstFindingMs ?? NaN) / 1000).toFixed(2)} s, shrunk sequence ${m.shrunkLength} command(s) [runs ${runs}]${m.commands.length && m.commands.length <= 12 ? `: ${m.commands.join(' → ')}` : ''}`;
}

/** Runs every mutant in turn; one line per mutant through `log`. */
export async function runMutantSelfTest(opts: {
  startServer: StartServer;
  runs?: number;
  log?: (line: string) => void;
}): Promise<MutantResult[]> {
  const st = await prepareMutantSelfTest(opts.startServer);
  const out: MutantResult[] = [];
  try {
    for (let i = 0; i < mutants.length; i++) {
      const r = await st.run(i, opts.runs);
      out.push(r);
      opts.log?.(describeResult(r, opts.runs));
    }
  } finally {
    await st.close();
  }
  return out;
}

/** The proxy serves the API (random port); the relay (the merchant's configured port) forwards webhooks to it. */
export async function startRelay(
  relayPort: number,
  receiverPort: number,
  mutant: Mutant,
  upstream: string,
  k: { main: string; other: string },
  secret: string,
) {
  const proxy = await startProxy({ upstream, mutant, keys: k, webhookTarget: `http://127.0.0.1:${receiverPort}/hooks`, secret });
  const relay = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void fetch(proxy.webhookUrl, { method: 'POST', headers: req.headers as Record<string, string>, body: Buffer.concat(chunks) }).catch(
        () => undefined,
      );
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => relay.listen(relayPort, '127.0.0.1', () => r()));
  return {
    url: proxy.url,
    close: async () => {
      relay.closeAllConnections();
      await new Promise<void>((r) => relay.close(() => r()));
      await proxy.close();
    },
  };
}
