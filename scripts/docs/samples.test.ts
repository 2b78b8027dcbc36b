/**
 * Every generated TypeScript sample (x-codeSamples of both docs bundles) type-checks against the
 * generated types with the project's compiler settings; and deliberately wrong samples do not.
 */
import { execFile } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../lib/paths.ts';
import { docsBundle } from './bundle.ts';
import { SAMPLE_IMPORT_FROM, listOperations, type CodeSample } from './samples.ts';

const run = promisify(execFile);
const DIR = path.join(ROOT, '.artifacts', 'samples');

interface SampleFile {
  file: string;
  source: string;
}

function collect(): { good: SampleFile[]; curl: Array<{ id: string; source: string }> } {
  const good: SampleFile[] = [];
  const curl: Array<{ id: string; source: string }> = [];
  for (const variant of [1, 2] as const) {
    const doc = docsBundle(variant);
    for (const ref of listOperations(doc)) {
      const samples = ref.operation['x-codeSamples'] as CodeSample[] | undefined;
      const ts = samples?.find((s) => s.lang === 'TypeScript');
      const sh = samples?.find((s) => s.label === 'curl');
      if (!ts || !sh) throw new Error(`v${variant} ${ref.operationId}: missing samples`);
      good.push({ file: path.join(DIR, 'good', `v${variant}-${ref.operationId}.ts`), source: ts.source });
      curl.push({ id: `v${variant} ${ref.operationId}`, source: sh.source });
    }
  }
  return { good, curl };
}

const { good, curl } = collect();
const byName = (name: string) => {
  const s = good.find((g) => path.basename(g.file) === name);
  if (!s) throw new Error(`no sample ${name}`);
  return s.source;
};
// Wrong on purpose; each must fail the type check.
const bad: SampleFile[] = [
  // Variant 1's body (total as a number) sent with the Variant 2 client.
  {
    file: path.join(DIR, 'bad', 'v1-body-on-v2-client.ts'),
    source: byName('v1-createSession.ts').replace(/createMerchantClientV1/g, 'createMerchantClientV2'),
  },
  // A path that the spec does not have.
  {
    file: path.join(DIR, 'bad', 'unknown-path.ts'),
    source: byName('v2-createPartnerTransaction.ts').replace(
      "'/api/v1/public/partner/transactions'",
      "'/api/v1/public/partner/transaction'",
    ),
  },
  // A quantity sent as a string.
  {
    file: path.join(DIR, 'bad', 'quantity-string.ts'),
    source: byName('v2-createPartnerTransaction.ts').replace('quantity: 1', 'quantity: "1"'),
  },
  // A3 does not exist in Variant 2.
  {
    file: path.join(DIR, 'bad', 'a3-on-v2.ts'),
    source: byName('v1-verifyTransaction.ts').replace(/createMerchantClientV1/g, 'createMerchantClientV2'),
  },
];

let diagnostics: string[] = [];

beforeAll(async () => {
  await rm(DIR, { recursive: true, force: true });
  await mkdir(path.join(DIR, 'good'), { recursive: true });
  await mkdir(path.join(DIR, 'bad'), { recursive: true });
  for (const s of [...good, ...bad]) {
    const rel = path
      .relative(path.dirname(s.file), path.join(ROOT, 'generated', 'index.ts'))
      .split(path.sep)
      .join('/');
    await writeFile(s.file, s.source.split(SAMPLE_IMPORT_FROM).join(rel));
  }
  await writeFile(
    path.join(DIR, 'tsconfig.json'),
    JSON.stringify({ extends: '../../tsconfig.json', include: ['good/*.ts', 'bad/*.ts'] }, null, 2),
  );
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    await run(process.execPath, [tsc, '--noEmit', '-p', path.join(DIR, 'tsconfig.json'), '--pretty', 'false'], { cwd: ROOT });
    diagnostics = [];
  } catch (e) {
    const out = `${(e as { stdout?: string }).stdout ?? ''}${(e as { stderr?: string }).stderr ?? ''}`;
    diagnostics = out.split('\n').filter((l) => /error TS\d+/.test(l));
    if (diagnostics.length === 0) throw e;
  }
}, 120_000);

describe('generated code samples', () => {
  it('there is a curl and a TypeScript sample for every operation of both variants', () => {
    const ops1 = listOperations(docsBundle(1)).length;
    const ops2 = listOperations(docsBundle(2)).length;
    expect(good.length).toBe(ops1 + ops2);
    expect(ops1).toBe(ops2 + 1); // A3 is Variant 1 only
    // Every API path is under /api/v1/, except the service probes (ADR-040).
    for (const c of curl)
      expect(c.source, c.id).toMatch(
        /^curl -X (GET|POST|PUT|DELETE|PATCH) "https:\/\/sandbox\.paylater\.example\/(api\/v1\/|healthz"|readyz")/,
      );
  });

  it('every TypeScript sample type-checks against the generated types', () => {
    const inGood = diagnostics.filter((d) => d.includes(`${path.sep}good${path.sep}`) || d.includes('good/'));
    expect(inGood).toEqual([]);
  });

  for (const b of bad) {
    it(`a wrong sample fails the type check: ${path.basename(b.file)}`, () => {
      const name = path.basename(b.file);
      expect(diagnostics.some((d) => d.includes(`bad/${name}`) || d.includes(`bad${path.sep}${name}`))).toBe(true);
    });
  }

  it('the curl body is the request example, shell-quoted', () => {
    const c = curl.find((x) => x.id === 'v2 createSession');
    expect(c?.source).toContain(`"total": "1299.50"`);
    expect(c?.source).toContain('-H "X-API-Key: $PAYLATER_API_KEY"');
    const v1 = curl.find((x) => x.id === 'v1 createSession');
    expect(v1?.source).toContain(`"total": 1299.5,`);
  });
});
