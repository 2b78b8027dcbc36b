/** Findings as a runnable curl script, a JSON report and a JUnit report: the suite's and every ear's report formats. */
import { writeFileSync } from 'node:fs';
import type { NamedExchange as Exchange } from './exchange.ts';

export interface Finding {
  title: string;
  operation: string;
  jsonPath: string;
  message: string;
  expected?: unknown;
  actual?: unknown;
  phase: 'property' | 'tour' | 'coverage' | 'setup';
  commands: string[];
  /** How shrinking ended (property findings: steps taken, and why it stopped), or why the finding is not shrunk. */
  shrinking?: string;
  curl: string;
  seed: number;
  path?: string;
  replay: string;
  /** The finding's baseline key: rule, operation and JSON path, stable across seeds and runs (baseline.ts). */
  key?: string;
}

const CAPTURE_FIELDS = ['id', 'token', 'session_token', 'transaction_id', 'payment_intent_id'];

/** Request-body fields a server keeps unique: the script draws a fresh value for each on every run. */
const FRESH_FIELDS = ['vendorReference'];

/** A valid reference (starts with a letter or digit, URL-safe) of 8 characters or more: only those are redrawn (a shorter one could be part of other text). */
const REFERENCE = /^[A-Za-z0-9][A-Za-z0-9._~-]{0,99}$/;

/** 12 random hex digits in bash. */
const RANDOM_HEX = "$(od -An -N6 -tx1 /dev/urandom | tr -d ' \\n')";

/**
 * Each distinct value the requests sent in a FRESH_FIELDS field becomes a shell variable whose
 * default is a fresh value of the same length (its tail redrawn), so the script reproduces on the
 * server it ran against (a reused reference would now be a duplicate).
 */
function freshReferences(exchanges: Exchange[]): { value: string; name: string; line: string }[] {
  const out: { value: string; name: string; line: string }[] = [];
  for (const ex of exchanges) {
    for (const [f, v] of toFreshen(ex.body)) {
      if (out.some((o) => o.value === v)) continue;
      const name = `${f.replace(/[A-Z]/g, (c) => '_' + c).toUpperCase()}_${out.length + 1}`;
      const fresh = v.length > 12 ? `${v.slice(0, v.length - 12)}${RANDOM_HEX}` : `${RANDOM_HEX.replace(/\)$/, ` | head -c ${v.length})`)}`;
      out.push({ value: v, name, line: `${name}=\${${name}:-${fresh}}  # sent as ${v}` });
    }
  }
  return out;
}

/** The values of a request body's FRESH_FIELDS a replay must redraw (field, value): only references of 8 characters or more. */
export function toFreshen(body: string | undefined): [string, string][] {
  let json: Record<string, unknown> | undefined;
  try {
    json = body ? (JSON.parse(body) as Record<string, unknown>) : undefined;
  } catch {
    json = undefined;
  }
  const out: [string, string][] = [];
  for (const f of FRESH_FIELDS) {
    const v = json?.[f];
    if (typeof v === 'string' && v.length >= 8 && REFERENCE.test(v)) out.push([f, v]);
  }
  return out;
}

/** `s` inside bash double quotes: backslash, double quote, backquote and dollar escaped (the variables are put in after). */
const dq = (s: string): string => s.replace(/[\\"`$]/g, (c) => `\\${c}`);

/** The exchanges as a bash script: keys as $API_KEY/$OTHER_API_KEY, ids captured with jq into variables. */
export function curlScript(exchanges: Exchange[], keys: { apiKey: string; otherApiKey: string; baseUrl: string }): string {
  const vars = new Map<string, string>();
  const lines = [
    '#!/usr/bin/env bash',
    '# Replays the shrunk command sequence. Needs curl and jq.',
    `BASE_URL=\${BASE_URL:-${keys.baseUrl.replace(/\/$/, '')}}`,
    ': "${API_KEY:?set API_KEY}" "${OTHER_API_KEY:?set OTHER_API_KEY}"',
    'set -u',
  ];
  // fresh references first: a longer value containing a shorter one is replaced first
  const refs = freshReferences(exchanges);
  for (const r of refs) lines.push(r.line);
  for (const r of [...refs].sort((a, b) => b.value.length - a.value.length)) vars.set(r.value, r.name);
  const subst = (s: string): string => {
    let out = s.split(keys.otherApiKey).join('${OTHER_API_KEY}').split(keys.apiKey).join('${API_KEY}');
    for (const [value, name] of vars) out = out.split(value).join(`\${${name}}`);
    return out;
  };
  const later = (i: number, value: string): boolean =>
    exchanges.slice(i + 1).some((e) => e.url.includes(value) || (e.body ?? '').includes(value) || Object.values(e.headers).includes(value));
  exchanges.forEach((ex, i) => {
    const url = subst(dq(ex.url).replace(keys.baseUrl.replace(/\/$/, ''), '${BASE_URL}'));
    const parts = [`curl -sS -X ${ex.method}`, `"${url}"`];
    for (const [k, v] of Object.entries(ex.headers)) parts.push(`-H "${k}: ${subst(dq(v))}"`);
    if (ex.body !== undefined)
      parts.push(
        ex.body.length > 2000
          ? `--data-binary @<(head -c ${ex.body.length} /dev/zero | tr '\\0' x)`
          : `--data-binary "${subst(dq(ex.body))}"`,
      );
    const captures: [string, string][] = [];
    const json = ex.json as Record<string, unknown> | undefined;
    for (const f of CAPTURE_FIELDS) {
      const v = json?.[f];
      if (typeof v === 'string' && !vars.has(v) && later(i, v)) captures.push([f, v]);
    }
    lines.push(`# ${i + 1}. ${ex.opId}: got ${ex.status}`);
    if (captures.length) {
      lines.push(`R${i + 1}=$(${parts.join(' ')})`, `echo "$R${i + 1}"`);
      for (const [f, v] of captures) {
        const name = `${f.toUpperCase()}_${i + 1}`;
        lines.push(`${name}=$(jq -r '.${f}' <<<"$R${i + 1}")`);
        vars.set(v, name);
      }
    } else lines.push(`${parts.join(' ')} -w '\\n%{http_code}\\n'`);
  });
  return lines.join('\n') + '\n';
}

export function writeJson(file: string, summary: unknown): void {
  writeFileSync(file, JSON.stringify(summary, null, 2) + '\n');
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * A JUnit report: one failed test case per finding; a finding a baseline knows (`known`, with the
 * reason) is a skipped test case instead.
 */
export function writeJunit(
  file: string,
  name: string,
  checks: number,
  findings: Finding[],
  seconds: number,
  known: { finding: Finding; reason: string }[] = [],
): void {
  const details = (f: Finding): string =>
    xml(`${f.replay}\n\nCommands:\n${f.commands.join('\n')}${f.shrinking ? `\n(${f.shrinking})` : ''}\n\n${f.curl}`);
  const failed = findings.map(
    (f) =>
      `    <testcase classname="${xml(name)}" name="${xml(f.title)}">\n      <failure message="${xml(f.message)}">${details(f)}</failure>\n    </testcase>`,
  );
  const skipped = known.map(
    ({ finding: f, reason }) =>
      `    <testcase classname="${xml(name)}" name="${xml(f.title)}">\n      <skipped message="${xml(reason)}">${xml(f.message)}</skipped>\n    </testcase>`,
  );
  const cases = [...failed, ...skipped];
  if (!findings.length) cases.unshift(`    <testcase classname="${xml(name)}" name="conformance (${checks} checks)"/>`);
  writeFileSync(
    file,
    `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="${xml(name)}" tests="${cases.length}" failures="${findings.length}" skipped="${known.length}" time="${seconds.toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`,
  );
}

/**
 * One line of a coverage summary, as every ear prints it: `LABEL: a, b` (or, `count`, how many of
 * all), then what was not, unless `listMissing` is false (a live ear's error codes: most are never
 * met by traffic, a list would be noise).
 */
export function coverageLine(
  label: string,
  c: { exercised: readonly string[]; missing: readonly string[] },
  o: { count?: boolean; listMissing?: boolean } = {},
): string {
  const seen = o.count ? `${c.exercised.length}/${c.exercised.length + c.missing.length}` : c.exercised.join(', ') || 'none';
  const missing = o.listMissing !== false && c.missing.length ? `; not exercised: ${c.missing.join(', ')}` : '';
  return `${label}: ${seen}${missing}`;
}
