/** The human summary of a suite run, as `paylater conform` prints it. */
import { coverageLine } from '../judge/report.ts';
import { EXIT } from '../lib/commands.ts';
import type { Judged } from './baseline.ts';
import type { SuiteResult } from './run.ts';

/**
 * Prints the findings in full, then the figures. With `baseline` (a run with --baseline), only the
 * new findings are printed in full; the known ones get one line each with the reason, and the
 * baseline entries the run did not meet are listed, to remove.
 */
export function printSummary(r: SuiteResult, out: (s: string) => void, baseline?: { file: string; judged: Judged }): void {
  const full = baseline ? baseline.judged.fresh : r.findings;
  for (const [i, f] of full.entries()) {
    out(`\n--- ${baseline ? 'new ' : ''}finding ${i + 1}: ${f.title} (${f.phase})`);
    out(f.message);
    if (f.expected !== undefined || f.actual !== undefined)
      out(`expected: ${JSON.stringify(f.expected)}\nactual:   ${JSON.stringify(f.actual)}`);
    if (f.commands.length) out(`commands (${f.commands.length}):\n  ${f.commands.join('\n  ')}`);
    if (f.shrinking) out(`shrinking: ${f.shrinking}`);
    if (f.replay) out(`replay: ${f.replay}`);
    if (f.curl) out(`curl script:\n${f.curl}`);
  }
  if (baseline) printBaseline(baseline.file, baseline.judged, out);
  out(
    `\nseed ${r.seed}: ${r.checks} checks, ${r.requests} requests, ${r.commands} commands in ${(r.durationMs / 1000).toFixed(1)} s; ${r.findings.length} finding(s)${baseline ? `: ${baseline.judged.fresh.length} new, ${baseline.judged.known.length} known (baseline ${baseline.file})` : ''}`,
  );
  out(coverageLine('transitions exercised', r.coverage.transitions));
  out(coverageLine('error codes exercised', r.coverage.codes, { count: true }));
  out(coverageLine('forbidden moves refused from each status', r.coverage.moves, { count: true }));
  const e = r.coverage.edges;
  if (e)
    out(
      e.notProbed.length
        ? `time limits not probed in this profile (no sandbox clock): ${e.notProbed.join('; ')}`
        : `time limits probed just inside and at their end, within a second: ${e.probed.length}/${e.probed.length + e.missing.length}${e.missing.length ? `; not within a second this run: ${e.missing.join(', ')}` : ''}`,
    );
  out(
    `not drivable from outside: ${r.coverage.codes.notDriven.length} (${[...new Set(r.coverage.codes.notDriven.map((s) => s.split(' ')[2]))].join(', ')})`,
  );
  if (r.incomplete.length)
    out(`INCOMPLETE (exit ${EXIT.incomplete}): no finding, but this run could not exercise:\n  ${r.incomplete.join('\n  ')}`);
  if (r.interrupted)
    out(
      `INTERRUPTED by ${r.interrupted} (exit ${r.interrupted === 'SIGTERM' ? EXIT.sigterm : EXIT.sigint}): the run stopped early; the phases it did not reach are not judged`,
    );
  if (r.authThrottle?.throttled)
    out(
      `auth throttle: ${r.authThrottle.throttled} answer(s) 429 AUTH_THROTTLED (x-auth-failure-limit), each sent again after its Retry-After; ${(r.authThrottle.waitedMs / 1000).toFixed(1)} s spent waiting on the throttle`,
    );
  if (r.webhooks)
    out(`webhooks: ${r.webhooks.received} deliveries received, ${r.webhooks.ignored} about transactions older than this run ignored`);
  out(`seed: ${r.seed}`);
}

function printBaseline(file: string, j: Judged, out: (s: string) => void): void {
  if (j.known.length) {
    out(`\n--- known findings (${j.known.length}), not failing the run:`);
    for (const k of j.known) out(`  ${k.finding.title}: ${k.reason}`);
  }
  if (j.resolved.length) {
    out(
      `\n--- baseline entries not found by this run (${j.resolved.length}): fixed, or not reached by this run; remove the fixed ones from ${file} (or write it again with --write-baseline):`,
    );
    for (const e of j.resolved) out(`  ${e.key}`);
  }
}
