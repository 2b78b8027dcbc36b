/** `npm run docs`: the merchant docs, from spec/, into dist/docs/ (scripts/docs/build.ts). */
import path from 'node:path';
import { buildDocs } from './docs/build.ts';

const result = await buildDocs();
console.log(`docs: ${result.pages.length} pages in ${path.relative(process.cwd(), result.outDir) || '.'} (${result.ms} ms)`);
for (const p of result.pages.sort()) console.log(`  ${p}`);
