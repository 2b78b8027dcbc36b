/** `npm run docs [OUT_DIR]`: the merchant docs, from spec/, into dist/docs/ or OUT_DIR (scripts/docs/build.ts). */
import path from 'node:path';
import { buildDocs } from './docs/build.ts';

const out = process.argv[2];
const result = await buildDocs(out === undefined ? undefined : path.resolve(out));
console.log(`docs: ${result.pages.length} pages in ${path.relative(process.cwd(), result.outDir) || '.'} (${result.ms} ms)`);
for (const p of result.pages.sort()) console.log(`  ${p}`);
