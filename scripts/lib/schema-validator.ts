/**
 * JSON Schema 2020-12 validation against a bundled OpenAPI 3.1 document, for tests and
 * tools of the contract: `validatorFor(doc)('#/components/schemas/X')(value)`. Besides the
 * JSON Schema keywords it checks `x-amount-range` where it is a validation rule (no
 * `x-business-rule` beside it): the contract answers 400 outside the range, whether or not a
 * `minimum`/`maximum` copy lets a generic validator see it (Variant 2's decimal string).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { centimesOf, isMad } from '../../lib/money.ts';

export function validatorFor(doc: Record<string, unknown>): (pointer: string) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addFormat('mad', { type: 'number', validate: (n: number) => isMad(n) });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
  ajv.addKeyword({
    keyword: 'x-amount-range',
    schemaType: 'object',
    validate: (range: { minimum: number; maximum: number }, data: unknown, parent?: Record<string, unknown>) => {
      if (parent?.['x-business-rule'] !== undefined || (typeof data !== 'number' && typeof data !== 'string')) return true;
      const c = centimesOf(data);
      return c !== null && c >= centimesOf(range.minimum)! && c <= centimesOf(range.maximum)!;
    },
  });
  ajv.addSchema({ ...doc, $id: 'contract.json' });
  const cache = new Map<string, ValidateFunction>();
  return (pointer) => {
    let fn = cache.get(pointer);
    if (!fn) {
      fn = ajv.compile({ $ref: `contract.json${pointer}` });
      cache.set(pointer, fn);
    }
    return fn;
  };
}
