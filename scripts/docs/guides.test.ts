import { describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../../generated/index.ts';
import { validatorFor } from '../lib/schema-validator.ts';
import { loadGuides } from './build.ts';
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
