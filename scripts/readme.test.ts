/**
 * The README a newcomer reads in five minutes: at most 200 lines, the two
 * commands that work on a fresh clone first (`.ci/run` runs exactly the test one), then a path
 * for each reader to a page under docs/; every relative link of the README and of docs/ is a
 * file of the repository.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDocsLinks, checkReadmeLinks, linkProblems } from './lib/messages.ts';
import { ROOT } from './lib/paths.ts';

const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
const lines = readme.replace(/\n$/, '').split('\n');

describe('README.md', () => {
  it('is at most 200 lines', () => {
    expect(lines.length).toBeLessThanOrEqual(200);
  });

  it('begins with the two commands of a fresh clone: the reference server, then the whole test suite', () => {
    const commands = lines.slice(0, 6).filter((l) => !l.startsWith('#') && !l.startsWith('```') && l.trim() !== '');
    expect(lines[0]).toBe('# paylater-contract');
    expect(lines[2]).toBe('```sh');
    expect(lines[5]).toBe('```');
    expect(commands.map((l) => l.replace(/\s+#.*$/, ''))).toEqual(['npm ci && npm start', 'npm ci && npm test']);
  });

  it('.ci/run runs exactly its test command (npm ci with output flags only, then npm test)', async () => {
    const ci = (await readFile(path.join(ROOT, '.ci', 'run'), 'utf8')).trimEnd().split('\n');
    expect(ci.at(-1)).toMatch(/^npm ci( --no-audit| --no-fund)* && npm test$/);
  });

  it('gives merchants, implementers and API designers each a path to a page under docs/, and links the other pages', async () => {
    for (const page of ['merchants', 'implementers', 'api-designers', 'shared-sandbox', 'performance', 'architecture']) {
      expect(readme, page).toContain(`](docs/${page}.md)`);
    }
    const pages = (await readdir(path.join(ROOT, 'docs'))).filter((f) => f.endsWith('.md'));
    for (const f of pages) expect(readme, `docs/${f} is linked from the README`).toContain(`](docs/${f})`);
    for (const heading of ['## For merchants', '## For implementers', '## For API designers']) {
      expect(
        lines.some((l) => l.startsWith(heading)),
        heading,
      ).toBe(true);
    }
  });
});

describe('docs for users, history in docs/history.md', () => {
  it('the speed table gives each figure its command, current value, CPU and target, nothing else', () => {
    const at = lines.indexOf('## Speed, measured');
    expect(at).toBeGreaterThan(0);
    const rows = lines
      .slice(
        at + 1,
        lines.findIndex((l, i) => i > at && l.startsWith('## ')),
      )
      .filter((l) => l.startsWith('|'));
    expect(rows[0]).toBe('| Figure | Command | Value | CPU | Target |');
    expect(rows.length).toBeGreaterThan(2);
    for (const row of rows.slice(2)) {
      const cells = row.split(' | ');
      expect(cells, row).toHaveLength(5);
      expect(cells[1], row).toMatch(/^`(npm run bench -- [a-z0-9-]+|npx [^`]+)`/);
      // one value, no run logs: no machine letters, run counts, alternatives or verdicts
      expect(cells[2], row).toMatch(/^[\d.,−-]+( ?[a-zA-Z/]+)?$/);
      expect(row, row).not.toMatch(/\b(missed|met|\d+ runs|machines?|[UVWX]:)\b/);
    }
  });

  it('no page for users carries commit hashes, issue numbers or dated runs (docs/history.md does)', async () => {
    const pages = (await readdir(path.join(ROOT, 'docs'))).filter((f) => f.endsWith('.md') && f !== 'history.md' && f !== 'traffic.md');
    for (const f of ['README.md', ...pages.map((p) => `docs/${p}`)]) {
      const text = await readFile(path.join(ROOT, f), 'utf8');
      expect(text, f).not.toMatch(/`(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,40}`/);
      expect(text, f).not.toMatch(/\bissue \d+/i);
      expect(text, f).not.toMatch(/\b20\d\d-\d\d-\d\d's\b|load average/);
    }
  });

  it('links the contract inside the repository, never a file outside it', () => {
    expect(readme).not.toMatch(/\.\.\/shared|merchant-payment-service\.md/);
    expect(readme).toContain('](spec/README.md)');
  });
});

describe('links', () => {
  it('every relative link of README.md and of docs/*.md is a file of the repository', async () => {
    expect(await checkReadmeLinks()).toEqual([]);
    expect(await checkDocsLinks()).toEqual([]);
  });

  it('resolves a page’s links from its own folder, and reports a missing file or a link leaving the repository', () => {
    expect(
      linkProblems('docs/x.md', '[a](storage.md) [b](../spec/README.md#layout) [c](README.md) [d](../../outside.md) [e](#top)'),
    ).toEqual([
      'docs/x.md: link README.md is not a file of the repository',
      'docs/x.md: link ../../outside.md is not a file of the repository',
    ]);
    expect(linkProblems('docs/x.md', '![shot](../sdk/browser/screenshots/button-v2.png) [f](https://example.com/)')).toEqual([
      'docs/x.md: link https://example.com/ leaves the repository',
    ]);
  });
});
