/** specFact: the bundled contract's value at a JSON pointer, or an error naming the pointer. */
import { describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../generated/index.ts';
import { specFact } from './spec-fact.ts';

type Json = Record<string, unknown>;
const doc = loadBundledDocument(1) as { paths: Record<string, Json>; components: { schemas: Record<string, Json> } };

describe('specFact', () => {
  it('reads the value at a pointer, its ~1 and ~0 escapes decoded', () => {
    const events = doc.paths['/api/v1/sandbox/events']!.get as Json;
    expect(specFact('#/paths/~1api~1v1~1sandbox~1events/get/x-keep-alive-seconds', 'number')).toBe(events['x-keep-alive-seconds']);
    expect(specFact('#/components/schemas/TestShopperPhone/default', 'string')).toBe(doc.components.schemas.TestShopperPhone!.default);
  });
  it('a pointer to nothing, or to a value of another type, is an error naming it', () => {
    expect(() => specFact('#/components/schemas/NoSuchSchema/default', 'string')).toThrow(
      'spec: #/components/schemas/NoSuchSchema/default holds no string',
    );
    expect(() => specFact('#/components/schemas/TestShopperPhone/default', 'number')).toThrow(/holds no number/);
    // an inherited member is not the document's
    expect(() => specFact('#/components/schemas/toString', 'string')).toThrow(/holds no string/);
  });
});
