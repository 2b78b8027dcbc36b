/**
 * The resilience items of the go-live check, with failures on demand (ADR-052). While certify
 * observes with resilience on, it sets a fault rule answering the merchant's next A1 call 429
 * (`retry_after` RETRY_AFTER_S), and once that call came, one answering the next A1 call 500.
 * From the recorded calls (ADR-056) it then judges:
 *
 *   - after the 429, the next A1 call came at least `retry_after` later;
 *   - after the 500, the client retried with a backoff (its first retry at least
 *     MIN_BACKOFF_MS later, at most MAX_BURST calls in the BURST_WINDOW_MS after it) or gave up.
 */
import { callApi, type SandboxTarget } from '../lib/sandbox-client.ts';
import { guideLink, type CheckItem, type Verdict } from './checklist.ts';

/** The wait the simulated 429 asks for, in seconds. */
export const RETRY_AFTER_S = 2;
/** The shortest first retry after a 500 that counts as a backoff. */
export const MIN_BACKOFF_MS = 200;
/** More A1 calls than this within BURST_WINDOW_MS of the 500 is a burst. */
export const MAX_BURST = 2;
export const BURST_WINDOW_MS = 1000;

const A1 = 'createSession';

export interface LoggedCall {
  at: string;
  operationId: string | null;
  status: number | null;
  simulated: string | null;
}

/** Drives the two fault rules while observing; `stop` removes the rule in place. */
export function startResilienceRules(t: SandboxTarget, pollMs = 150): { stop(): Promise<void>; ready: Promise<void> } {
  let phase: '429' | '500' | 'done' = '429';
  let stopped = false;
  const set = (failure: '429' | '500') =>
    callApi(t, 'PUT', '/api/v1/sandbox/faults', {
      rule: { failure, operations: [A1], times: 1, ...(failure === '429' ? { retryAfterSeconds: RETRY_AFTER_S } : {}) },
    });
  const ready = set('429').then(() => undefined);
  const loop = (async () => {
    await ready;
    while (!stopped && phase !== 'done') {
      await new Promise((r) => setTimeout(r, pollMs));
      const rule = (await callApi(t, 'GET', '/api/v1/sandbox/faults')).rule as { used?: number } | null;
      if (!rule || (rule.used ?? 0) < 1) continue;
      if (phase === '429') {
        await set('500');
        phase = '500';
      } else phase = 'done';
    }
  })();
  return {
    ready,
    async stop() {
      stopped = true;
      await loop.catch(() => undefined);
      await callApi(t, 'PUT', '/api/v1/sandbox/faults', { rule: null });
    },
  };
}

const ms = (x: number) => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);

/** The two resilience items from the recorded calls. */
export function resilienceItems(calls: LoggedCall[], docsUrl: string, observed: boolean): CheckItem[] {
  const guide = guideLink(docsUrl, 'resilience');
  const item = (id: string, title: string, verdict: Verdict, seen: string): CheckItem => ({
    id: `resilience.${id}`,
    group: 'resilience',
    title,
    verdict,
    seen,
    guide,
  });
  const titles = {
    retryAfter: 'After a 429 the next A1 call waits retry_after',
    backoff: 'After a 500 the client retries with a backoff or gives up (no burst)',
  };
  if (!observed) {
    const why = 'not observed: run paylater certify with --observe SECONDS --resilience and create checkout sessions meanwhile';
    return [item('retry-after', titles.retryAfter, 'not_observed', why), item('backoff', titles.backoff, 'not_observed', why)];
  }
  const a1 = calls.filter((c) => c.operationId === A1).sort((x, y) => Date.parse(x.at) - Date.parse(y.at));
  const out: CheckItem[] = [];

  const i429 = a1.findIndex((c) => c.simulated === '429');
  if (i429 < 0)
    out.push(item('retry-after', titles.retryAfter, 'not_observed', 'no A1 call was made while observing, so none was answered 429'));
  else {
    const next = a1[i429 + 1];
    if (!next)
      out.push(
        item(
          'retry-after',
          titles.retryAfter,
          'not_observed',
          `A1 was answered 429 (retry_after ${RETRY_AFTER_S} s) and not called again while observing`,
        ),
      );
    else {
      const gap = Date.parse(next.at) - Date.parse(a1[i429]!.at);
      const pass = gap >= RETRY_AFTER_S * 1000;
      out.push(
        item(
          'retry-after',
          titles.retryAfter,
          pass ? 'pass' : 'fail',
          `the next A1 came ${ms(gap)} after the 429 (retry_after ${RETRY_AFTER_S} s)${pass ? '' : ': it did not wait'}`,
        ),
      );
    }
  }

  const i500 = a1.findIndex((c) => c.simulated === '500');
  if (i500 < 0)
    out.push(item('backoff', titles.backoff, 'not_observed', 'no A1 call was answered 500 while observing (one is, after the 429)'));
  else {
    const t500 = Date.parse(a1[i500]!.at);
    const after = a1.slice(i500 + 1).map((c) => Date.parse(c.at) - t500);
    const inWindow = after.filter((d) => d < BURST_WINDOW_MS).length;
    if (after.length === 0)
      out.push(item('backoff', titles.backoff, 'pass', 'A1 was answered 500 and the client gave up (no retry while observing)'));
    else {
      const pass = after[0]! >= MIN_BACKOFF_MS && inWindow <= MAX_BURST;
      out.push(
        item(
          'backoff',
          titles.backoff,
          pass ? 'pass' : 'fail',
          `after the 500 the first retry came ${ms(after[0]!)} later, ${inWindow} A1 call(s) within ${ms(BURST_WINDOW_MS)}` +
            (pass ? '' : `: a burst (a backoff waits at least ${MIN_BACKOFF_MS} ms and sends at most ${MAX_BURST} calls in that time)`),
        ),
      );
    }
  }
  return out;
}
