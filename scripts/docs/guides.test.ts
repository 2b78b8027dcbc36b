import { describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../../generated/index.ts';
import { validatorFor } from '../lib/schema-validator.ts';
import { ROOT } from '../lib/paths.ts';
import { specValue } from '../lib/rule-spec.ts';
import { specTable } from '../lib/spec-tables.ts';
import { loadDecisions, loadGuides } from './build.ts';
import { guideBlocks, schemaPointer } from './guide-blocks.ts';

const guides = await loadGuides();
const docs = { 1: loadBundledDocument(1), 2: loadBundledDocument(2) } as const;
const validators = { 1: validatorFor(docs[1]), 2: validatorFor(docs[2]) } as const;

describe('guides (spec/guides/*.md)', () => {
  it('the guides exist: checkout, partner, webhooks, sandbox, go-live', () => {
    expect(guides.map((g) => g.slug)).toEqual(['checkout', 'partner', 'webhooks', 'sandbox', 'go-live']);
  });

  for (const g of guides) {
    const { checked } = guideBlocks(g.file, g.source);
    it(`${g.file}: has JSON examples tied to operations`, () => {
      expect(checked.length).toBeGreaterThan(0);
    });
    for (const b of checked) {
      for (const v of b.variants) {
        it(`${g.file}:${b.line} ${b.webhook ?? `${b.operationId} ${b.part}`} is valid in Variant ${v}`, () => {
          const validate = validators[v](schemaPointer(docs[v], b));
          const ok = validate(b.json);
          expect(validate.errors ?? [], JSON.stringify(b.json)).toEqual([]);
          expect(ok).toBe(true);
        });
      }
    }
  }

  it('the check can fail: a V1 session request is not valid in Variant 2, and a wrong status is refused', () => {
    const md =
      '```json op=createSession part=request variant=2\n{ "total": 1299.5, "currency": "MAD", "items": [ { "id": "a", "name": "b", "price": 1299.5, "quantity": 1 } ] }\n```\n';
    const [block] = guideBlocks('t.md', md).checked;
    expect(block).toBeDefined();
    const validate = validators[2](schemaPointer(docs[2], block!));
    expect(validate(block!.json)).toBe(false);
    expect(() => schemaPointer(docs[1], { operationId: 'createSession', part: '418' })).toThrow();
    expect(() => guideBlocks('t.md', '```json\n{}\n```\n')).toThrow(/op=/);
  });
});

it('the decisions page quotes the facts as spec/ states them: none left unfilled, the retry schedule as x-webhook-delivery gives it', async () => {
  const text = await loadDecisions();
  expect(text.match(/\{\{[^}]*\}\}/g) ?? []).toEqual([]);
  const schedule = await specTable('webhook-retry-delays', (loc) => specValue(ROOT, loc));
  expect(schedule).toMatch(/^0 s, 5 s, /);
  expect(text).toContain(`Attempts after\n  ${schedule}, the jitter on each delay`);
});
