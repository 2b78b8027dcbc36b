/**
 * JSON Schema 2020-12 validation against a bundled OpenAPI 3.1 document, for tests and
 * tools of the contract: `validatorFor(doc)('#/components/schemas/X')(value)`.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { isMad } from '../../lib/money.ts';

export function validatorFor(doc: Record<string, unknown>): (pointer: string) => ValidateFunction {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  ajv.addFormat('mad', { type: 'number', validate: (n: number) => isMad(n) });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isSafeInteger(n) });
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
