/**
 * Redocly's `redocly diff` (experimental in @redocly/cli 2.x) with its `diff-recommended` rules
 * (scripts/diff/redocly-diff.yaml), run on the source roots so that its places are `spec/` files and
 * lines. Only its JSON report is read: anything the CLI prints around it (a Node deprecation
 * banner, notices) is skipped.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../lib/paths.ts';
import { CLIENTS, IMPLEMENTERS, MERCHANTS, type Audience, type Change, type Impact, type Side } from './model.ts';

export const REDOCLY_DIFF_CONFIG = path.join(ROOT, 'scripts', 'diff', 'redocly-diff.yaml');

interface Place {
  file: string;
  line: number;
  pointer?: string;
  value?: unknown;
}

export interface RedoclyChange {
  path: string;
  kind: 'added' | 'removed' | 'modified';
  impact: Impact;
  property?: string;
  verdicts: Array<{ ruleId: string; impact: Impact; message: string; location: Place }>;
  base?: Place;
  revision?: Place;
}

export interface RedoclyReport {
  infoVersions: { base: string; revision: string };
  bump?: Impact;
  changes: RedoclyChange[];
}

/** The JSON report in the CLI's output: the first line that opens an object, to the end. */
export function parseReport(stdout: string): RedoclyReport | undefined {
  const start = stdout.search(/^\{\s*$/m);
  if (start < 0) return undefined;
  try {
    const parsed = JSON.parse(stdout.slice(start)) as RedoclyReport;
    return Array.isArray(parsed.changes) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

export function runRedoclyDiff(baseRoot: string, revRoot: string): Promise<RedoclyReport | { error: string }> {
  const bin = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
  const args = [bin, 'diff', baseRoot, revRoot, '--config', REDOCLY_DIFF_CONFIG, '--format=json', '--fail-on=none', '--lint-config=off'];
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env }, (error, stdout, stderr) => {
      resolve(
        parseReport(stdout ?? '') ?? {
          error: `redocly diff ${path.basename(revRoot)} gave no JSON report (${error ? error.message : 'exit 0'}):\n${stderr}`,
        },
      );
    });
  });
}

/** `#/paths/~1a~1b/post/...` → ['paths', '/a/b', 'post', ...] */
export function pointerKeys(pointer: string): string[] {
  return pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter(Boolean)
    .map((s) => decodeURIComponent(s).replace(/~1/g, '/').replace(/~0/g, '~'));
}

function sideOf(keys: string[]): Side {
  if (keys[0] === 'webhooks' || keys[0] === 'channels' || (keys[0] === 'components' && keys[1] === 'messages')) return 'event';
  if (keys.includes('responses')) return 'response';
  return 'request';
}

function subjectOf(keys: string[]): string {
  if (keys[0] === 'paths' && keys[2])
    return `${keys[2].toUpperCase()} ${keys[1]}${keys[3] === 'responses' && keys[4] ? ` ${keys[4]}` : ''}`;
  if (keys[0] === 'webhooks' || keys[0] === 'channels') return `${keys[0] === 'webhooks' ? 'event' : 'channel'} ${keys[1] ?? ''}`.trim();
  return keys.slice(0, 3).join(' › ') || 'document';
}

/** Who a change of this impact on this side breaks. */
export function audienceOf(impact: Impact, side: Side): Audience[] {
  if (impact === 'patch') return [];
  if (impact === 'minor') return [IMPLEMENTERS];
  return side === 'request' ? [MERCHANTS, CLIENTS] : [MERCHANTS, CLIENTS, IMPLEMENTERS];
}

function placeText(place: Place | undefined, baseDir: string, revDir: string): string | undefined {
  if (!place) return undefined;
  const abs = path.resolve(ROOT, place.file);
  const inRev = !path.relative(revDir, abs).startsWith('..');
  const rel = path
    .relative(inRev ? revDir : baseDir, abs)
    .split(path.sep)
    .join('/');
  return `${rel}:${place.line}${inRev ? '' : ' (base)'}`;
}

/** Redocly's changes as the contract's changes (`info.version` itself left out: it is the gate's business). */
export function fromRedocly(
  document: string,
  report: RedoclyReport,
  baseDir: string,
  revDir: string,
): Array<Change & { places: string[] }> {
  const out: Array<Change & { places: string[] }> = [];
  for (const c of report.changes) {
    const keys = pointerKeys(c.path);
    if (keys.length === 1 && keys[0] === 'info' && c.property === 'version') continue;
    const side = sideOf(keys);
    const verdict = c.verdicts[0];
    const where = c.kind === 'removed' ? c.base : (c.revision ?? c.base);
    const places = [
      placeText(c.revision, baseDir, revDir),
      placeText(c.base, baseDir, revDir),
      placeText(verdict?.location, baseDir, revDir),
    ].filter((p): p is string => p !== undefined);
    const what = c.kind === 'modified' ? `\`${c.property ?? 'value'}\` changed` : `\`${keys[keys.length - 1] ?? 'document'}\` ${c.kind}`;
    out.push({
      documents: [document],
      rule: `redocly/${verdict?.ruleId ?? c.kind}`,
      impact: c.impact,
      side,
      subject: subjectOf(keys),
      message: verdict ? c.verdicts.map((v) => v.message).join(' ') : what,
      location: placeText(where, baseDir, revDir) ?? 'spec/',
      breaks: audienceOf(c.impact, side),
      places,
    });
  }
  return out;
}
