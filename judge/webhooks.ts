/**
 * The AsyncAPI document's payload validators, one per message, compiled once per process: the
 * suite's webhook receiver and the judge's webhook deliveries validate every payload with them.
 * The payload schemas come from `generated/webhooks.ts` (resolved from spec/asyncapi.yaml by
 * `npm run generate`), so a start does not parse and validate the AsyncAPI document again.
 */
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { webhookPayloadsText } from '../generated/webhooks.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

let validators: Map<string, ValidateFunction> | undefined;

/** One ajv validator per AsyncAPI message name. */
export function asyncApiValidators(): Map<string, ValidateFunction> {
  if (!validators) {
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats(ajv);
    const schemas = JSON.parse(webhookPayloadsText) as Record<string, object>;
    validators = new Map(Object.entries(schemas).map(([name, schema]) => [name, ajv.compile(schema)]));
  }
  return validators;
}
