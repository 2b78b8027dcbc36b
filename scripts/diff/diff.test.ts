/**
 * `paylater diff` classifies each fixture edit of spec/ (scripts/diff/fixtures.ts) as expected,
 * finds nothing in an unchanged copy, places changes in spec/ files, and its pieces (Redocly's
 * report parsing, version arithmetic, changelog sections, stale mentions) hold.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../lib/paths.ts';
import { diffTrees, loadTree, nextVersion, versionSatisfies, type DiffResult, type LoadedTree } from './engine.ts';
import { applyEdits, FIXTURES, type Fixture } from './fixtures.ts';
import { staleMentions } from './mentions.ts';
import { maxImpact } from './model.ts';
import { parseReport } from './redocly.ts';
import { changelogSection, changelogUpToDate, withChangelogSection } from './report.ts';
import { workingTree } from './tree.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'paylater-diff-test-'));
function copyContract(name: string): string {
  const dir = path.join(tmp, name);
  cpSync(path.join(ROOT, 'spec'), path.join(dir, 'spec'), { recursive: true });
  cpSync(path.join(ROOT, 'redocly.yaml'), path.join(dir, 'redocly.yaml'));
  return dir;
}

let base: LoadedTree;
const results = new Map<string, { diff: DiffResult; rev: LoadedTree } | Error>();

/** Runs `work` over `items`, `limit` at a time (the machine is shared). */
async function pool<T>(items: readonly T[], limit: number, work: (item: T, i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        await work(items[i]!, i);
      }
    }),
  );
}

beforeAll(async () => {
  base = await loadTree(workingTree(copyContract('base')));
  await pool([...FIXTURES, undefined], 2, async (fixture, i) => {
    const name = fixture?.name ?? 'unchanged';
    try {
      const dir = copyContract(`f${i}`);
      if (fixture) await applyEdits(dir, fixture.edits);
      const rev = await loadTree(workingTree(dir));
      results.set(name, { diff: await diffTrees(base, rev), rev });
    } catch (e) {
      results.set(name, e as Error);
    }
  });
}, 900_000);

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function resultOf(name: string): { diff: DiffResult; rev: LoadedTree } {
  const r = results.get(name);
  if (!r) throw new Error(`no result for ${name}`);
  if (r instanceof Error) throw r;
  return r;
}

describe('paylater diff classifies spec edits', () => {
  it('has at least 25 fixture edits', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(25);
  });

  it('finds no change in an unchanged spec', () => {
    const { diff } = resultOf('unchanged');
    expect(diff.errors).toEqual([]);
    expect(diff.changes).toEqual([]);
    expect(diff.documents.map((d) => d.impact)).toEqual(['none', 'none', 'none']);
  });

  it.each(FIXTURES.map((f) => [f.name, f] as [string, Fixture]))('%s', (name, fixture) => {
    const { diff } = resultOf(name);
    const summary = diff.changes.map((c) => `${c.impact} ${c.rule} ${c.location}: ${c.message}`).join('\n');
    expect(diff.errors, summary).toEqual([]);
    expect(maxImpact(diff.changes), summary).toBe(fixture.impact);
    for (const [rule, impact] of Object.entries(fixture.rules)) {
      expect(
        diff.changes.filter((c) => c.rule === rule).map((c) => c.impact),
        `${rule} in\n${summary}`,
      ).toContain(impact);
    }
    if (fixture.documents) {
      for (const d of diff.documents)
        expect(d.impact, `${d.key} in\n${summary}`).toBe(fixture.documents.includes(d.key) ? fixture.impact : d.impact);
      expect(
        diff.documents
          .filter((d) => d.impact === fixture.impact)
          .map((d) => d.key)
          .sort(),
      ).toEqual([...fixture.documents].sort());
    }
    for (const c of diff.changes) {
      expect(c.location, summary).toMatch(/^spec\/[^:]+\.(ya?ml|md):\d+( \(base\))?$/);
      expect(['request', 'response', 'event', 'behaviour', 'decision']).toContain(c.side);
    }
  });

  it('places the rename in the schema file, says whom it breaks, and needs a major bump', () => {
    const { diff } = resultOf(FIXTURES[0]!.name);
    const removed = diff.changes.find((c) => c.rule === 'domain/response-field-removed')!;
    expect(removed.location).toMatch(/^spec\/components\/schemas\/PartnerTransaction\.yaml:\d+ \(base\)$/);
    expect(removed.side).toBe('response');
    expect(removed.breaks).toEqual(['merchant integrations', 'generated clients']);
    expect(removed.removedNames).toEqual(['totalAmount']);
    expect(diff.documents.find((d) => d.key === 'merchant-v1')).toMatchObject({
      impact: 'major',
      requiredVersion: `${Number(String(diff.documents.find((d) => d.key === 'merchant-v1')?.baseVersion ?? '0').split('.')[0]) + 1}.0.0`,
      bumped: false,
    });
  });

  it('finds the guides and descriptions that still mention removed names', () => {
    const rename = resultOf(FIXTURES[0]!.name);
    const mentions = staleMentions(rename.diff.changes, rename.rev.docs, rename.rev.tree.dir);
    expect(mentions.map((m) => m.place).some((p) => p.startsWith('spec/guides/'))).toBe(true);
    const locale = resultOf(FIXTURES[1]!.name);
    expect(staleMentions(locale.diff.changes, locale.rev.docs, locale.rev.tree.dir)).toContainEqual({
      name: 'ar',
      place: 'spec/components/schemas/Locale.yaml:2',
    });
    const widened = resultOf(FIXTURES[2]!.name);
    expect(staleMentions(widened.diff.changes, widened.rev.docs, widened.rev.tree.dir)).toEqual([]);
  });
});

describe('diff pieces', () => {
  it('reads the JSON report whatever the CLI prints around it', () => {
    const report = '{\n  "infoVersions": {"base": "1.0.0", "revision": "1.0.0"},\n  "changes": []\n}\n';
    const banner = '\n  ╔══╗\n  ║ Deprecation warning: Node.js 20 {support} is ending ║\n  ╚══╝\n';
    expect(parseReport(`${banner}${report}`)).toEqual(JSON.parse(report));
    expect(parseReport(banner)).toBeUndefined();
    expect(parseReport('{\nnot json')).toBeUndefined();
  });

  it('computes the version a change needs', () => {
    expect(nextVersion('1.0.0', 'major')).toBe('2.0.0');
    expect(nextVersion('1.2.3', 'minor')).toBe('1.3.0');
    expect(nextVersion('1.2.3', 'patch')).toBe('1.2.4');
    expect(nextVersion('0.4.1', 'major')).toBe('0.5.0');
    expect(nextVersion('1.2.3', 'none')).toBe('1.2.3');
    expect(versionSatisfies('1.10.0', '1.9.0')).toBe(true);
    expect(versionSatisfies('1.0.0', '1.1.0')).toBe(false);
  });

  it('writes, replaces and checks the changelog section of the new versions', () => {
    const { diff } = resultOf(FIXTURES[0]!.name);
    const section = changelogSection(diff);
    const heading = section.split('\n')[0]!;
    expect(heading).toMatch(/^## merchant-v1 \d+\.\d+\.\d+ · merchant-v2 \d+\.\d+\.\d+ · webhooks \d+\.\d+\.\d+$/);
    expect(section).toMatch(/### Major\n\n- response, .*`totalAmount` is removed/);
    const first = withChangelogSection(undefined, diff);
    expect(changelogUpToDate(first, diff)).toBe(true);
    expect(withChangelogSection(first, diff)).toBe(first);
    const older = first.replace(heading, '## merchant-v1 0.9.0');
    const both = withChangelogSection(older, diff);
    expect(both.indexOf(heading)).toBeGreaterThan(0);
    expect(both.indexOf(heading)).toBeLessThan(both.indexOf('## merchant-v1 0.9.0'));
    expect(changelogUpToDate(first.replace('is removed', 'was removed'), diff)).toBe(false);
    expect(changelogUpToDate(undefined, diff)).toBe(false);
  });
});
