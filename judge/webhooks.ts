/**
 * The AsyncAPI document's payload validators, one per message, compiled once per process: the
 * suite's webhook receiver and the judge's webhook deliveries validate every payload with them.
 */
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import type { ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { Parser, fromFile } from '@asyncapi/parser';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

let validatorsPromise: Promise<Map<string, ValidateFunction>> | undefined;

/** One ajv validator per AsyncAPI message name, from `message.payload().json().schema`. */
export function asyncApiValidators(): Promise<Map<string, ValidateFunction>> {
  validatorsPromise ??= (async () => {
    const parser = new Parser();
    const file = fileURLToPath(new URL('../spec/asyncapi.yaml', import.meta.url));
    const { document, diagnostics } = await fromFile(parser, file).parse();
    if (!document) throw new Error(`AsyncAPI document does not parse: ${diagnostics.map((d) => d.message).join('; ')}`);
    const ajv = new Ajv({ strict: false, allErrors: false });
    addFormats(ajv);
    const out = new Map<string, ValidateFunction>();
    for (const m of document.messages().all()) {
      const json = m.payload()?.json<{ schema?: object }>();
      const name = m.name();
      if (name && json) out.set(name, ajv.compile(json.schema ?? json));
    }
    return out;
  })();
  return validatorsPromise;
}
