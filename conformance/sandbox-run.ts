/**
 * The sandbox around a run of the suite (ADR-041): settled before it, past everything earlier runs
 * left, and set back after it, each key's clock at real time again. Neither is judged: they are the
 * run's setup and its leaving, not its checks.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { tokenLifetimeSeconds } from '../generated/index.ts';
import { clockOffsetOf, paymentWindowSeconds } from './commands/advanceClock.ts';
import { rateLimit } from './commands/createSession.ts';
import { SetupError } from './http.ts';
import type { World } from './world.ts';

/**
 * Sandbox setup: reads the merchant's clock, then advances it past everything earlier runs left
 * (their transactions expire, tokens lapse, the rate window resets) and lets those deliveries pass.
 * An earlier run's transactions may lie ahead of the clock (its reset moved the clock back to real
 * time, ADR-041): the advance starts from the newest of them, so their events come during the
 * setup and are not judged, and every transaction of this run is created after the suite's start.
 */
export async function settleSandbox(w: World, opts: { apiKey: string; webhookGraceMs?: number }): Promise<void> {
  const c = await w.client.call('sandboxGetClock', { headers: w.auth('sandboxGetClock', opts.apiKey) });
  if (!w.succeeded(c))
    throw new SetupError(`GET /api/v1/sandbox/clock answered ${c.status}: the sandbox profile needs the sandbox endpoints and a test key`);
  w.suiteStartIso = (c.json as { now: string }).now;
  const ahead = Math.max(
    0,
    Math.ceil((Date.parse((await newestTransaction(w, opts.apiKey)) ?? '') - Date.parse(w.suiteStartIso)) / 1000) || 0,
  );
  const drain = ahead + paymentWindowSeconds(w.state) + tokenLifetimeSeconds + rateLimit(w.state).windowSeconds;
  const a = await w.client.call('sandboxAdvanceClock', { headers: w.auth('sandboxAdvanceClock', opts.apiKey), body: { seconds: drain } });
  if (!w.succeeded(a)) throw new SetupError(`POST /api/v1/sandbox/clock/advance answered ${a.status}`);
  w.state.clockBase = clockOffsetOf(a.json);
  w.suiteStartIso = (a.json as { now: string }).now;
  // a clock read without milliseconds is known to the second only
  const precisionMs = /\.\d{3}/.test(w.suiteStartIso) ? 0 : 1000;
  w.state.clockAnchor = {
    serverMs: Date.parse(w.suiteStartIso),
    perf: (a.sentAt + a.receivedAt) / 2,
    halfWidthMs: (a.receivedAt - a.sentAt) / 2 + precisionMs,
  };
  // past a whole window: every window the key began before has ended
  w.state.rate.main = { usedLo: 0, usedHi: 0, endLo: -Infinity, endHi: Infinity };
  if (w.receiver) {
    await delay(opts.webhookGraceMs ?? 150);
    w.judged = w.receiver.deliveries.length;
  }
}

/** The `createdAt` of the merchant's newest transaction (the sandbox list is newest first, ADR-028), if it lists one. */
async function newestTransaction(w: World, key: string): Promise<string | undefined> {
  if (!w.contract.has('sandboxListTransactions')) return undefined;
  const r = await w.client.call('sandboxListTransactions', { headers: w.auth('sandboxListTransactions', key), query: { limit: '1' } });
  if (!w.succeeded(r)) return undefined;
  return (r.json as { data?: Array<{ createdAt?: string }> }).data?.[0]?.createdAt;
}

/**
 * Leaves the sandbox as the run found it where the sandbox offers a reset (ADR-041): each
 * key's clock back to real time and its rate-limit window cleared; the data stays for
 * inspection. Outside the judged run: a sandbox without the operation is not a finding.
 */
export async function resetSandbox(
  w: World,
  opts: { baseUrl: string; apiKey: string; otherApiKey: string },
  log: (line: string) => void,
): Promise<void> {
  if (!w.contract.has('sandboxReset')) return;
  const url = new URL(w.contract.op('sandboxReset').path, opts.baseUrl).toString();
  for (const key of [opts.apiKey, opts.otherApiKey]) {
    try {
      const r = await w.client.fetchImpl(url, {
        method: 'POST',
        headers: { ...w.auth('sandboxReset', key), 'Content-Type': 'application/json' },
        body: '{}',
        signal: AbortSignal.timeout(w.client.timeoutMs),
      });
      await r.text();
      log(
        r.status >= 200 && r.status < 300
          ? 'sandbox reset: clock back to real time, rate-limit window cleared'
          : `sandbox reset not offered (${r.status}): the clock stays where the run left it`,
      );
    } catch (e) {
      log(`sandbox reset failed: ${(e as Error).message}`);
    }
  }
}
