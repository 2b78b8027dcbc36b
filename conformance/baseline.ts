/**
 * Baselines (`paylater conform --write-baseline FILE`, `--baseline FILE`): adopting the suite step
 * by step. A baseline records the findings of today's run by a key that does not depend on the
 * seed, the run or the data the run drew: the rule broken, the operation and the JSON path. A
 * later run with `--baseline` reports the findings under those keys as known (JUnit: skipped, with
 * the reason), fails only on new ones, and lists the entries it did not meet again, to remove.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { SetupError } from './http.ts';
import type { Finding } from '../judge/report.ts';

/** What a baseline file holds. */
export interface Baseline {
  /** Format of the file. */
  version: 1;
  /** What wrote it: the tool and the run. */
  createdBy: string;
  createdAt: string;
  entries: BaselineEntry[];
}

export interface BaselineEntry {
  key: string;
  rule: string;
  operation: string;
  jsonPath: string;
  /** The first finding's message when it was recorded, for a reader (not compared). */
  example: string;
}

const VERSION = 1;
const MAX_RULE = 240;

/**
 * The rule a finding broke, as its message states it with what varies between runs taken out:
 * the request's path (the operation is keyed apart), anything holding a digit (ids, statuses,
 * amounts, timestamps, references, keys), quoted strings, bodies quoted after `body:`.
 */
export function ruleOf(f: Pick<Finding, 'message' | 'operation' | 'jsonPath'>): string {
  let m = f.message;
  const prefix = `${f.operation} ${f.jsonPath}: `;
  if (m.startsWith(prefix)) m = m.slice(prefix.length);
  // an unexpected error: its first line, without the stack
  m = m.split('\n')[0]!;
  return m
    .replace(/\(body: [^]*$/, '(body: …)')
    .replace(/\b(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS|TRACE) \/\S*/g, '$1 {path}')
    .replace(/"(?:[^"\\]|\\.)*"/g, '"…"')
    .replace(/'(?:[^'\\]|\\.)*'/g, "'…'")
    .replace(/[\w.~+:@-]*\d[\w.~+:@-]*/g, '#')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, MAX_RULE);
}

/** The JSON path without array indexes (which item broke the rule depends on the data drawn). */
export function pathOf(jsonPath: string): string {
  return jsonPath.replace(/\[\d+\]/g, '[]').replace(/\.\d+(?=\.|$)/g, '[]');
}

/** A finding's key: its rule, operation and JSON path, stable across seeds and runs. */
export function findingKey(f: Pick<Finding, 'message' | 'operation' | 'jsonPath'>): string {
  return `${f.operation} ${pathOf(f.jsonPath)} | ${ruleOf(f)}`;
}

/** The baseline of a run's findings (one entry per key, in the order first found). */
export function baselineOf(findings: Finding[], createdBy: string): Baseline {
  const entries = new Map<string, BaselineEntry>();
  for (const f of findings) {
    const key = findingKey(f);
    if (!entries.has(key))
      entries.set(key, { key, rule: ruleOf(f), operation: f.operation, jsonPath: pathOf(f.jsonPath), example: f.message });
  }
  return { version: VERSION, createdBy, createdAt: new Date().toISOString(), entries: [...entries.values()] };
}

export function writeBaseline(file: string, b: Baseline): void {
  writeFileSync(file, JSON.stringify(b, null, 2) + '\n');
}

/** Reads a baseline; a missing, damaged or foreign file is a SetupError naming it (never read as empty). */
export function readBaseline(file: string): Baseline {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new SetupError(`--baseline ${file}: cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  let b: unknown;
  try {
    b = JSON.parse(text);
  } catch (e) {
    throw new SetupError(`--baseline ${file}: not JSON (${(e as Error).message}); write one with --write-baseline`);
  }
  const o = b as Partial<Baseline> | null;
  if (
    !o ||
    typeof o !== 'object' ||
    o.version !== VERSION ||
    !Array.isArray(o.entries) ||
    !o.entries.every((e) => e && typeof e === 'object' && typeof e.key === 'string')
  )
    throw new SetupError(
      `--baseline ${file}: not a baseline of paylater conform (version ${VERSION} with entries[].key); write one with --write-baseline`,
    );
  return o as Baseline;
}

export interface Judged {
  /** Findings not in the baseline: they fail the run. */
  fresh: Finding[];
  /** Findings the baseline knows, with the reason they do not fail the run. */
  known: { finding: Finding; reason: string }[];
  /** Entries no finding of this run matched: fixed, or not reached by this run (then they come back). */
  resolved: BaselineEntry[];
}

/** Splits a run's findings by the baseline `b` (read from `file`). */
export function judgeByBaseline(findings: Finding[], b: Baseline, file: string): Judged {
  const byKey = new Map(b.entries.map((e) => [e.key, e]));
  const met = new Set<string>();
  const out: Judged = { fresh: [], known: [], resolved: [] };
  const later: Finding[] = [];
  for (const f of findings) {
    const key = findingKey(f);
    if (byKey.has(key)) {
      met.add(key);
      out.known.push({ finding: f, reason: `known finding: in the baseline ${file} (recorded ${b.createdAt})` });
    } else if (f.phase === 'coverage') later.push(f);
    else out.fresh.push(f);
  }
  // What the coverage tour did not exercise depends on where a finding stopped it, which varies
  // with the seed: when a known finding stopped it, a gap the baseline lacks is that finding's
  // consequence, not a new fault (it counts again once that finding is fixed).
  const stop = out.known.find((k) => k.finding.phase === 'tour');
  for (const f of later) {
    if (stop)
      out.known.push({
        finding: f,
        reason: `not exercised because the coverage tour stopped at a known finding (${stop.finding.title}); it counts again once that one is fixed`,
      });
    else out.fresh.push(f);
  }
  out.resolved = b.entries.filter((e) => !met.has(e.key));
  return out;
}
