/**
 * The version gate of `npm run lint` on a real edit, in a temporary git repository holding a copy
 * of the contract: unchanged on `main` it passes; a breaking rename on a branch fails it (versions
 * not bumped, no changelog section, guides still naming the old field) until the designer bumps,
 * fixes the mentions and writes the changelog with `paylater diff --changelog`.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { ROOT } from '../lib/paths.ts';
import { DIFF_USAGE, runDiff } from './cli.ts';
import { main } from '../cli.ts';
import { versionGate } from './gate.ts';

const repo = mkdtempSync(path.join(os.tmpdir(), 'paylater-gate-test-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));

const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Designer', '-c', 'user.email=designer@example.com', ...args], { cwd: repo, encoding: 'utf8' });

function replaceEverywhere(dir: string, from: RegExp, to: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) replaceEverywhere(full, from, to);
    else if (e.name !== 'DECISIONS.md') writeFileSync(full, readFileSync(full, 'utf8').replace(from, to));
  }
}

/** The next major version of the committed Variant 1 document (both variants move together). */
const NEXT_MAJOR = `${Number(/\n {2}version: (\d+)\./.exec(readFileSync(path.join(ROOT, 'spec', 'openapi.v1.yaml'), 'utf8'))![1]) + 1}.0.0`;
const NEXT = NEXT_MAJOR.replace(/\./g, '\\.');

function setVersion(file: string, version: string): void {
  const p = path.join(repo, 'spec', file);
  writeFileSync(p, readFileSync(p, 'utf8').replace(/^( {2}version: )\S+$/m, `$1${version}`));
}

describe('paylater diff', () => {
  it('is a command of paylater, with its help', async () => {
    let out = '';
    expect(await runDiff(['--help'], repo, (s) => (out += s))).toBe(0);
    expect(out).toBe(DIFF_USAGE);
    expect(DIFF_USAGE).toMatch(/--base REF .*merge base of HEAD with main/s);
    let dispatched = '';
    const write = vi
      .spyOn(process.stdout, 'write')
      .mockImplementation((s: string | Uint8Array) => ((dispatched += typeof s === 'string' ? s : new TextDecoder().decode(s)), true));
    try {
      expect(await main(['diff', '--help'])).toBe(0);
      expect(await main(['--help'])).toBe(0);
    } finally {
      write.mockRestore();
    }
    expect(dispatched).toContain(DIFF_USAGE);
    expect(dispatched).toMatch(/diff {6}Rate the contract's changes against a git ref/);
  });
});

describe('the version gate on a real edit', () => {
  it('passes on main with nothing changed (the base is HEAD itself)', async () => {
    cpSync(path.join(ROOT, 'spec'), path.join(repo, 'spec'), { recursive: true });
    cpSync(path.join(ROOT, 'redocly.yaml'), path.join(repo, 'redocly.yaml'));
    if (existsSync(path.join(ROOT, 'CHANGELOG.md'))) cpSync(path.join(ROOT, 'CHANGELOG.md'), path.join(repo, 'CHANGELOG.md'));
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('commit', '-q', '-m', 'contract');
    const gate = await versionGate(repo);
    expect(gate.problems).toEqual([]);
    expect(gate.summary).toMatch(/merchant-v1 unchanged, merchant-v2 unchanged, webhooks unchanged; 0 problems/);
  }, 120_000);

  it('fails a breaking rename on a branch until versions, mentions and changelog follow', async () => {
    git('checkout', '-q', '-b', 'rename-total');
    const schema = path.join(repo, 'spec', 'components', 'schemas', 'PartnerTransaction.yaml');
    writeFileSync(schema, readFileSync(schema, 'utf8').replace(/totalAmount/g, 'amount'));
    git('commit', '-q', '-am', 'rename totalAmount');

    const before = await versionGate(repo);
    const text = before.problems.join('\n');
    expect(text).toMatch(new RegExp(`merchant-v1: info\\.version is \\S+, but its major changes against \\w+ need ${NEXT} or later`));
    expect(text).toMatch(/merchant-v2: info\.version is \S+, but its major changes/);
    expect(text).not.toMatch(/webhooks: info\.version/);
    expect(text).toMatch(/CHANGELOG\.md does not hold the section/);
    expect(text).toMatch(/spec\/guides\/02-partner\.md:\d+: still mentions `totalAmount`/);
    expect(text).toMatch(/spec\/components\/examples\/PartnerTransactionPending\.yaml:\d+: still mentions `totalAmount`/);

    let out = '';
    expect(await runDiff(['--check-version'], repo, (s) => (out += s))).toBe(1);
    expect(out).toMatch(
      /MAJOR {2}response {2}POST \/api\/v1\/public\/partner\/transactions \(createPartnerTransaction\) 201\n {7}`totalAmount` is removed\n {7}at spec\/components\/schemas\/PartnerTransaction\.yaml:\d+ \(base\) · breaks merchant integrations, generated clients/,
    );

    replaceEverywhere(path.join(repo, 'spec'), /totalAmount/g, 'amount');
    setVersion('openapi.v1.yaml', NEXT_MAJOR);
    setVersion('openapi.v2.yaml', NEXT_MAJOR);
    expect(await runDiff(['--changelog', '--check-version'], repo, () => undefined)).toBe(0);
    const changelog = readFileSync(path.join(repo, 'CHANGELOG.md'), 'utf8');
    expect(changelog).toMatch(
      new RegExp(
        `## merchant-v1 ${NEXT} · merchant-v2 ${NEXT} · webhooks \\S+\\n\\n### Major\\n\\n- response, .*\`totalAmount\` is removed`,
      ),
    );

    const after = await versionGate(repo);
    expect(after.problems).toEqual([]);
    expect(after.summary).toMatch(new RegExp(`merchant-v1 major → ${NEXT}, merchant-v2 major → ${NEXT}, webhooks unchanged`));

    writeFileSync(path.join(repo, 'CHANGELOG.md'), changelog.replace('is removed', 'went away'));
    expect((await versionGate(repo)).problems).toEqual([expect.stringMatching(/^CHANGELOG\.md does not hold the section/)]);
  }, 300_000);
});
