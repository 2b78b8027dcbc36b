/**
 * The served merchant docs link the merchant pages of docs/: `npm run docs`
 * renders each of MERCHANT_PAGES into dist/docs/, the landing page and the navigation link it,
 * and its links point at served pages (the guides, the decisions) or stay as text.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../lib/paths.ts';
import { MERCHANT_PAGES, loadGuides, servedRepoPage } from './build.ts';
import { renderMarkdown } from './commonmark.ts';

const guides = await loadGuides();

describe('servedRepoPage', () => {
  it('drops the repository-only blocks and the title, serves the guide and decision links, keeps other repository links as text', () => {
    const source = [
      '# Title',
      '',
      'See [checkout](../spec/guides/01-checkout.md#flow), [decisions](../spec/DECISIONS.md), [me](merchants.md),',
      '[`sdk/browser/README.md`](../sdk/browser/README.md), <http://127.0.0.1:4010/demo> and [site](https://example.com/x).',
      '<!-- repository only -->',
      '![shot](../sdk/browser/screenshots/button-v2.png)',
      '<!-- /repository only -->',
      '![left](x.png) end',
    ].join('\n');
    expect(servedRepoPage('docs/merchants.md', source, guides)).toBe(
      [
        '',
        'See [checkout](guide-checkout.html#flow), [decisions](decisions.html), [me](merchants.html),',
        '`sdk/browser/README.md`, <http://127.0.0.1:4010/demo> and [site](https://example.com/x).',
        'left end',
      ].join('\n'),
    );
  });

  it('serves every merchant page with links to served pages only', async () => {
    expect(MERCHANT_PAGES.map((m) => m.file)).toContain('docs/merchants.md');
    const served = new Set(['decisions.html', ...guides.map((g) => g.href), ...MERCHANT_PAGES.map((m) => m.href)]);
    for (const m of MERCHANT_PAGES) {
      const source = await readFile(path.join(ROOT, m.file), 'utf8');
      const html = renderMarkdown(servedRepoPage(m.file, source, guides)).html;
      const hrefs = [...html.matchAll(/href="([^"]+)"/g)].map((x) => x[1]!);
      expect(hrefs.length, m.file).toBeGreaterThan(0);
      for (const h of hrefs) {
        if (/^https?:/.test(h)) continue;
        expect(served.has(h.split('#')[0]!), `${m.file} links ${h}`).toBe(true);
      }
      expect(html).not.toContain('repository only');
      expect(html).not.toContain('<img');
    }
  });
});
