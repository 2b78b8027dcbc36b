/**
 * What an ear of traffic (`paylater proxy`, `paylater judge`) reports of the judge's findings: each
 * with the exchanges that show it, masked (mask.ts), numbered as the ear numbers them, and as a
 * runnable curl script (report.ts `curlScript`); the JSON and JUnit files (report.ts `writeJunit`,
 * in the suite's form); the summary's lines. Both ears report with these pieces, so a finding reads
 * the same from live traffic and from a recording. Nothing here holds a key in clear on its way out.
 */
import { jsonOf } from '../lib/json.ts';
import { isoMicro } from './clock.ts';
import type { Delivery, EarFinding, JudgeCoverage, NamedExchange as Exchange } from './exchange.ts';
import { isCredentialHeader, mask, maskHeaders, maskText } from './mask.ts';
import { isSessionTokenHeader } from './route.ts';
import { coverageLine, curlScript, writeJson, writeJunit, type Finding } from './report.ts';

/** A body an ear kept only the first `limit` characters of (the proxy's exchange ring), marked so. */
export function cut(t: string, limit: number): string {
  return `${t.slice(0, limit)}… (${t.length} characters, cut at ${limit})`;
}

/** Whether a ring body was cut (its text is not the body's: a HAR of the ring leaves it out). */
export const wasCut = (t: string): boolean => /… \(\d+ characters, cut at (\d+)\)$/.exec(t)?.[1] === String(t.lastIndexOf('… ('));

/** A finding as reported: its exchanges masked, and as a curl script. */
export interface ReportedFinding extends Omit<EarFinding, 'exchanges'> {
  n: number;
  at: string;
  exchanges: MaskedExchange[];
  /** Exchanges the finding names that the ring no longer held. */
  exchangesDropped: number[];
  curl: string;
}

/**
 * An exchange as a report shows it: the one judge's NamedExchange, masked, with its
 * number, its operation under the report's name, and its times as a date and a duration; not its
 * parsed JSON (the text is there).
 */
export interface MaskedExchange extends Pick<
  Exchange,
  'method' | 'url' | 'headers' | 'body' | 'status' | 'responseHeaders' | 'responseText' | 'requestTruncated' | 'responseTruncated'
> {
  n: number;
  operation: Exchange['opId'];
  startedAt: string;
  ms: number;
}

/** Most findings kept in full (the count goes on). */
export const MAX_FINDINGS = 1000;

/** The findings as the summary prints them: the first 20 in full. */
export function findingLines(findings: ReportedFinding[], count: number): string[] {
  const lines: string[] = [];
  for (const f of findings.slice(0, 20)) lines.push(`--- finding ${f.n} (${f.kind}): ${f.operation} ${f.jsonPath}`, f.message);
  if (count > 20) lines.push(`(${count - 20} more in the JSON report)`);
  return lines;
}

/** The coverage as the summary prints it. */
export function coverageLines(c: JudgeCoverage): string[] {
  return [
    coverageLine('operations exercised', c.operations, { count: true }),
    coverageLine('transitions exercised', c.transitions),
    coverageLine('error codes exercised', c.codes, { count: true, listMissing: false }),
    `events matched to a transition: ${c.events.exercised.join(', ') || 'none'}`,
  ];
}

/**
 * An exchange as a report shows it: masked, numbered `n`, its start as ISO 8601 (µs) on the clock
 * `timeOrigin` + its times (the proxy's: performance.timeOrigin; a HAR's: 0).
 */
export function maskedExchange(n: number, ex: Exchange, secrets: readonly string[], timeOrigin = performance.timeOrigin): MaskedExchange {
  return {
    n,
    operation: ex.opId,
    method: ex.method,
    url: maskText(ex.url, secrets),
    headers: maskHeaders(ex.headers, secrets),
    body: ex.body === undefined ? undefined : maskText(ex.body, secrets),
    status: ex.status,
    responseHeaders: maskHeaders(ex.responseHeaders, secrets),
    responseText: maskText(ex.responseText, secrets),
    requestTruncated: ex.requestTruncated || undefined,
    responseTruncated: ex.responseTruncated || undefined,
    startedAt: isoMicro(timeOrigin + ex.sentAt),
    ms: Math.round((ex.receivedAt - ex.sentAt) * 1000) / 1000,
  };
}

/** A webhook delivery as reports show it: an exchange named for its event, its status the receiver's answer (0: none yet). */
export function deliveryExchange(d: Delivery, url: string, status: number): Exchange {
  const body = d.truncated ? undefined : d.body;
  return {
    opId: `webhook ${(jsonOf(body) as { event?: string } | undefined)?.event ?? '?'}`,
    method: 'POST',
    url,
    headers: d.headers,
    body,
    requestTruncated: d.truncated,
    status,
    responseHeaders: {},
    responseText: '',
    json: undefined,
    sentAt: d.receivedAt,
    receivedAt: d.receivedAt,
  };
}

/**
 * A finding as reported: the exchanges `held` still holds of those it names, masked, numbered as
 * the ear numbers them, with the suite's curl script of them; the message masked.
 */
export function reportFinding(
  f: EarFinding,
  n: number,
  held: ReadonlyMap<number, Exchange>,
  o: { upstream: string; secrets: readonly string[]; ear: string; timeOrigin?: number },
): ReportedFinding {
  const shown = f.exchanges.filter((s) => held.has(s));
  return {
    n,
    at: new Date().toISOString(),
    ...f,
    message: maskText(f.message, o.secrets),
    exchanges: shown.map((s) => maskedExchange(s, held.get(s)!, o.secrets, o.timeOrigin)),
    exchangesDropped: f.exchanges.filter((s) => !held.has(s)),
    curl: curlOf(
      shown.map((s) => held.get(s)!).filter((e) => !e.opId.startsWith('webhook ')),
      o.upstream,
      o.secrets,
      o.ear,
    ),
  };
}

/**
 * The suite's curl script of the exchanges, masked: the first two merchant keys become $API_KEY and
 * $OTHER_API_KEY, any other credential stays masked (MASKED_…) for the reader to fill in.
 */
function curlOf(list: Exchange[], upstream: string, secrets: readonly string[], ear: string): string {
  if (!list.length) return '';
  const keys: string[] = [];
  const masked = list.map((ex) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(ex.headers)) {
      if (k === 'host' || k === 'content-length' || k === 'connection') continue;
      if (isCredentialHeader(k)) {
        const m = v.startsWith('MASKED_') ? v : mask(v);
        if (!isSessionTokenHeader(k) && !keys.includes(m)) keys.push(m);
        headers[k] = m;
      } else headers[k] = maskText(v, secrets);
    }
    return {
      ...ex,
      url: maskText(ex.url, secrets),
      headers,
      body: ex.body === undefined ? undefined : maskText(ex.body, secrets),
      responseText: '',
      json: wasCut(ex.responseText) ? undefined : jsonOf(ex.responseText),
    };
  });
  const apiKey = keys[0] ?? 'MASKED_NO_KEY_0';
  const otherApiKey = keys[1] ?? 'MASKED_NO_KEY_1';
  let script = curlScript(masked, { apiKey, otherApiKey, baseUrl: upstream });
  if (keys.length < 2) script = script.replace(' "${OTHER_API_KEY:?set OTHER_API_KEY}"', '');
  if (keys.length < 1) script = script.replace(': "${API_KEY:?set API_KEY}"\n', '');
  return script.replace('# Replays the shrunk command sequence.', `# Replays the exchanges ${ear} (keys masked: set them).`);
}

/** An ear's report as JSON (`files.json`), and its findings as JUnit (`files.junit`: a failed test case each, in the suite's form). */
export function writeReports(
  files: { json?: string; junit?: string },
  report: Record<string, unknown>,
  suite: { tool: string; findings: ReportedFinding[]; name: string; checks: number; seconds: number },
): void {
  if (files.json) writeJson(files.json, report);
  const asSuite = suite.findings.map((f): Finding => ({
    title: `${f.kind}: ${f.operation} ${f.jsonPath}`,
    ...f,
    phase: 'property',
    commands: f.exchanges.map((e) => `#${e.n} ${e.method} ${e.url} -> ${e.status}`),
    seed: 0,
    replay: `finding ${f.n} of ${suite.tool} (${f.kind})`,
  }));
  if (files.junit) writeJunit(files.junit, suite.name, suite.checks, asSuite, suite.seconds);
}
