/**
 * The docs' look, as a browser computes it: a page styled by the docs' stylesheet
 * (scripts/docs/templates/style.css, served at /docs/style.css) has its body font and colours and
 * its links' accent colour. Browser-default output (Times, black, blue links) fails every check.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { ROOT } from '../../scripts/lib/paths.ts';

/** `#rrggbb` as the browser's computed `rgb(r, g, b)`. */
function rgb(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}

/** The stylesheet's custom properties (`--ink: #1c2430;`), read from the source the docs build copies. */
async function cssVars(): Promise<Record<string, string>> {
  const css = await readFile(path.join(ROOT, 'scripts/docs/templates/style.css'), 'utf8');
  return Object.fromEntries([...css.matchAll(/--([a-z-]+):\s*(#[0-9a-f]{6})\s*;/gi)].map((m) => [m[1]!, m[2]!]));
}

/** Fails unless `page`'s body and the link matching `link` have the docs' font and colours. */
export async function expectDocsLook(page: Page, link = 'main a'): Promise<void> {
  const vars = await cssVars();
  const body = await page.evaluate(() => {
    const s = getComputedStyle(document.body);
    return { font: s.fontFamily, color: s.color, background: s.backgroundColor };
  });
  expect(body.font).toMatch(/^system-ui\b/);
  expect(body.color).toBe(rgb(vars.ink!));
  expect(body.background).toBe('rgb(255, 255, 255)');
  const linkColor = await page
    .locator(link)
    .first()
    .evaluate((a) => getComputedStyle(a).color);
  expect(linkColor).toBe(rgb(vars.accent!));
}
