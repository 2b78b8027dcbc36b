/** The README's screenshots change only through `npm run screenshots`: a test run writes under .artifacts/ alone. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { refreshReadmeShot, SHOTS } from '../reference-server/test-support/browser-harness.ts';
import { ROOT } from './lib/paths.ts';
import { SCREENSHOT_TESTS } from './screenshots.ts';

it('copies a screenshot over the README copy only when asked (UPDATE_SCREENSHOTS=1) or when the copy is missing', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'paylater-shots-'));
  try {
    const shot = path.join(dir, 'new.png');
    const target = path.join(dir, 'readme', 'shot.png');
    writeFileSync(shot, 'new');
    expect(await refreshReadmeShot(shot, target, {})).toBe(true); // missing: written
    writeFileSync(target, 'committed');
    expect(await refreshReadmeShot(shot, target, {})).toBe(false); // a test run: left alone
    expect(readFileSync(target, 'utf8')).toBe('committed');
    expect(await refreshReadmeShot(shot, target, { UPDATE_SCREENSHOTS: '1' })).toBe(true); // npm run screenshots
    expect(readFileSync(target, 'utf8')).toBe('new');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('the browser tests write their screenshots under .artifacts/ and refresh README copies only through refreshReadmeShot', () => {
  expect(path.relative(ROOT, SHOTS).split(path.sep)[0]).toBe('.artifacts');
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(pkg.scripts.screenshots).toBe('tsx scripts/screenshots.ts');
  for (const f of SCREENSHOT_TESTS) {
    const text = readFileSync(path.join(ROOT, f), 'utf8');
    expect(text).toContain('refreshReadmeShot(');
    expect(text).not.toMatch(/copyFile\(/);
  }
});
