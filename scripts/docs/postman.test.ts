/** The request collections: Postman v2.1 per variant, from the spec, with the sandbox flows as a folder. */
import { describe, expect, it } from 'vitest';
import { loadBundledDocument, variants } from '../../generated/index.ts';
import { toPostmanCollection } from './postman.ts';

interface Item {
  name: string;
  item?: Item[];
  request?: { method: string; url: { raw?: string } | string; header?: Array<{ key: string }> };
}

const requests = (items: Item[]): Item[] => items.flatMap((i) => (i.item ? requests(i.item) : [i]));

describe('Postman collections', () => {
  it.each([1, 2] as const)(
    'Variant %i: v2.1 schema, one request per operation, a Sandbox folder with every sandbox operation',
    async (v) => {
      const c = (await toPostmanCollection(loadBundledDocument(v))) as {
        info: { schema: string; name: string };
        item: Item[];
        variable?: Array<{ key: string }>;
      };
      expect(c.info.schema).toBe('https://schema.getpostman.com/json/collection/v2.1.0/collection.json');
      expect(c.info.name).toContain(`Variant ${v}`);
      const ops = Object.values((v === 1 ? variants.v1 : variants.v2).operations) as Array<{ method: string; tags: readonly string[] }>;
      expect(requests(c.item)).toHaveLength(ops.length);
      const sandbox = c.item.find((i) => i.name === 'Sandbox');
      expect(sandbox).toBeDefined();
      expect(requests(sandbox!.item!)).toHaveLength(ops.filter((o) => o.tags.includes('Sandbox')).length);
      const reset = requests(sandbox!.item!).find((r) => JSON.stringify(r.request?.url).includes('"sandbox","reset"'));
      expect(reset?.request?.method).toBe('POST');
      expect(c.variable?.map((x) => x.key)).toContain('baseUrl');
    },
  );
});
