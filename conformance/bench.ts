/**
 * Figures for `npm run bench`: the suite's throughput relative to a plain loop sending the same
 * HTTP requests without checks (target >= 0.7). Black-box: takes a base URL and keys.
 */
import { runSuite } from './run.ts';

export interface ThroughputResult {
  suiteRequests: number;
  suiteCommands: number;
  suiteMs: number;
  loopMs: number;
  commandsPerSecond: number;
  /** (requests/s of the suite) ÷ (requests/s of the plain loop over the same requests). */
  ratio: number;
}

export async function measureConformanceThroughput(baseUrl: string, keys: { apiKey: string; otherApiKey: string; variant?: 1 | 2; profile?: 'core' | 'sandbox' }, runs = 20, seed = 1): Promise<ThroughputResult> {
  const recorded: { url: string; method: string; headers: Record<string, string>; body?: string }[] = [];
  const recordingFetch: typeof fetch = (input, init) => {
    recorded.push({ url: String(input), method: init?.method ?? 'GET', headers: { ...(init?.headers as Record<string, string>) }, body: init?.body as string | undefined });
    return fetch(input, init);
  };
  const t0 = performance.now();
  const r = await runSuite({ baseUrl, apiKey: keys.apiKey, otherApiKey: keys.otherApiKey, variant: keys.variant ?? 1, profile: keys.profile ?? 'core', runs, seed, maxCommands: 25, paymentWindowSeconds: 1800, fetchImpl: recordingFetch });
  const suiteMs = performance.now() - t0;
  // The same requests again, one after another, no checks (state differs; the cost per request is what counts).
  const t1 = performance.now();
  for (const q of recorded) {
    const res = await fetch(q.url, { method: q.method, headers: q.headers, body: q.body });
    await res.arrayBuffer();
  }
  const loopMs = performance.now() - t1;
  return {
    suiteRequests: recorded.length,
    suiteCommands: r.commands,
    suiteMs,
    loopMs,
    commandsPerSecond: r.commands / (suiteMs / 1000),
    ratio: recorded.length / suiteMs / (recorded.length / loopMs),
  };
}

/** Median of the mutants' time to first finding (ms), from the self-test's figures. */
export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}
