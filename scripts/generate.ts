/**
 * `npm run generate` — writes `generated/` from `spec/`, deterministically:
 *   generated/v<n>/openapi.yaml   the bundled document of Variant n (for tools and readers)
 *   generated/v<n>/document.ts    the same document as JSON text (what the server, suite and proxy load)
 *   generated/v<n>/schema.d.ts    openapi-typescript types of Variant n
 *   generated/v<n>/client.ts      a typed openapi-fetch client factory for Variant n
 *   generated/v<n>/server.ts      typed handler signatures per operationId and the operation table (server/)
 *   generated/contract.ts         the contract's machine-readable facts (state machine, errors, limits)
 *   generated/webhooks.ts         each AsyncAPI message's payload schema, as JSON text (the webhook receivers')
 *   generated/index.ts            entry point
 *   spec/RULES.md                 the rule index (scripts/lib/rules.ts)
 * `--check` writes nothing and exits 1 listing every file that regenerating would change.
 */
import { mkdir, readFile, writeFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import YAML from 'yaml';
import { GENERATED_DIR, ROOT } from './lib/paths.ts';
import { RULES_INDEX, renderRuleIndex } from './lib/rules.ts';
import { bundleApi, listApis, parseAsyncApi, type Variant } from './lib/spec.ts';
import {
  amountRange,
  checkoutStatusOf,
  errorCatalog,
  maxBodyBytes,
  maxErrorDetails,
  maxPaymentIntentUrlLength,
  errorPrecedence,
  operations,
  rateLimits,
  serverOperations,
  stateMachine,
  tokenLifetimeSeconds,
  webhookDelivery,
  webhookEvents,
} from './lib/contract-facts.ts';

const HEADER_LINES = [
  'GENERATED FILE — DO NOT EDIT.',
  'Written by `npm run generate` from spec/ (the source of truth); edit spec/ and regenerate.',
];
const tsHeader = `/**\n${HEADER_LINES.map((l) => ` * ${l}`).join('\n')}\n */\n`;
const yamlHeader = `${HEADER_LINES.map((l) => `# ${l}`).join('\n')}\n`;

export async function renderGenerated(): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const apis = (await listApis()).sort((a, b) => a.variant - b.variant);
  const facts: Record<string, unknown> = {};
  for (const api of apis) {
    const doc = await bundleApi(api);
    const dir = `v${api.variant}`;
    const yamlText = YAML.stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });
    files.set(`${dir}/openapi.yaml`, yamlHeader + yamlText);
    files.set(`${dir}/document.ts`, renderDocumentModule(api.variant, yamlText));
    // A property with a `default` stays optional: every default of the contract is on a request, which may omit it.
    const ast = await openapiTS(doc as never, { alphabetize: true, defaultNonNullable: false });
    const types = path.relative(GENERATED_DIR, api.typesOutput);
    if (types !== `${dir}/schema.d.ts`)
      throw new Error(`redocly.yaml x-openapi-ts.output for ${api.name} must be generated/${dir}/schema.d.ts`);
    files.set(types, tsHeader + astToString(ast));
    files.set(`${dir}/client.ts`, renderClient(api.variant));
    files.set(`${dir}/server.ts`, renderServer(api.variant, serverOperations(doc)));
    facts[`v${api.variant}`] = {
      operations: operations(doc),
      rateLimits: rateLimits(doc),
      webhookEvents: webhookEvents(doc),
    };
    if (api.variant === 1) {
      facts.shared = {
        stateMachine: stateMachine(doc),
        checkoutStatusOf: checkoutStatusOf(doc),
        errorCatalog: errorCatalog(doc),
        webhookDelivery: webhookDelivery(doc),
        tokenLifetimeSeconds: tokenLifetimeSeconds(doc),
        maxBodyBytes: maxBodyBytes(doc),
        maxErrorDetails: maxErrorDetails(doc),
        maxPaymentIntentUrlLength: maxPaymentIntentUrlLength(doc),
        amountRange: amountRange(doc),
        errorPrecedence: errorPrecedence(doc),
      };
    }
  }
  files.set('contract.ts', renderContract(facts));
  files.set('webhooks.ts', await renderWebhookPayloads());
  files.set('index.ts', renderIndex(apis.map((a) => a.variant)));
  return files;
}

/** `x-parser-*` annotations @asyncapi/parser adds to the schemas it resolves: not the contract's, dropped. */
const withoutParserNotes = (_key: string, v: unknown): unknown =>
  v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter(([k]) => !k.startsWith('x-parser-'))) : v;

/**
 * The payload schema of each AsyncAPI message, by message name, as @asyncapi/parser resolves
 * spec/asyncapi.yaml (external \`$ref\`s included): parsing and validating the document costs
 * seconds of CPU and a large dependency at every start of a receiver, so it is done here, once.
 */
async function renderWebhookPayloads(): Promise<string> {
  const { document } = await parseAsyncApi();
  const payloads: Record<string, unknown> = {};
  for (const m of document.messages().all()) {
    const json = m.payload()?.json<{ schema?: unknown }>();
    const name = m.name();
    if (!name || !json) throw new Error(`spec/asyncapi.yaml: message ${name ?? '(unnamed)'} has no name or no payload`);
    payloads[name] = JSON.parse(JSON.stringify(json.schema ?? json, withoutParserNotes));
  }
  const sorted = Object.fromEntries(Object.entries(payloads).sort(([a], [b]) => a.localeCompare(b)));
  return `${tsHeader}
/**
 * The payload schema of each AsyncAPI message (spec/asyncapi.yaml, resolved by @asyncapi/parser,
 * its \`x-parser-*\` annotations dropped), by message name, as JSON text: what the webhook
 * receivers of the suite and the proxy validate each delivery against.
 */
export const webhookPayloadsText = ${JSON.stringify(JSON.stringify(sorted))};
`;
}

function renderClient(variant: Variant): string {
  return `${tsHeader}import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths, webhooks } from './schema.d.ts';

export type { components, operations, paths, webhooks };

/** A typed openapi-fetch client for Variant ${variant} of the merchant API. */
export type MerchantClientV${variant} = Client<paths>;

/** Creates a typed openapi-fetch client for Variant ${variant}. Pass \`baseUrl\`, and \`fetch\` to inject one. */
export function createMerchantClientV${variant}(options: ClientOptions = {}): MerchantClientV${variant} {
  return createClient<paths>(options);
}
`;
}

function renderServer(variant: Variant, table: ReturnType<typeof serverOperations>): string {
  const ids = table.map((o) => o.operationId);
  return `${tsHeader}import type { OperationEntry, OperationHandler, RequestOf, ResponseOf } from '../../server/types.ts';
import type { operations } from './schema.d.ts';

/** The operationIds of Variant ${variant}. */
export type OperationId = ${ids.map((id) => JSON.stringify(id)).join(' | ')};

/** What the handler of \`Id\` receives: path parameters, query, declared headers, body. */
export type Request<Id extends OperationId> = RequestOf<operations[Id]>;
/** Every response \`Id\` declares: \`{ status, body, headers }\`, discriminated by \`status\`. */
export type Response<Id extends OperationId> = ResponseOf<operations[Id]>;
/** The handler of \`Id\`; \`Caller\` is what the router's \`authenticate\` returns. */
export type Handler<Id extends OperationId, Caller = unknown> = OperationHandler<operations[Id], Caller>;
/** The operations without a security scheme (\`security: []\`): their handlers get no caller. */
export type OpenOperationId = ${
    table
      .filter((o) => o.auth === null)
      .map((o) => JSON.stringify(o.operationId))
      .join(' | ') || 'never'
  };
/** One handler per operationId of Variant ${variant}; an open operation's handler gets \`undefined\` as its caller. */
export type Handlers<Caller = unknown> = { [Id in OperationId]: Handler<Id, Id extends OpenOperationId ? undefined : Caller> };

/** The operations of Variant ${variant}, in document order: what the router compiles its routes from. */
export const operationTable = ${JSON.stringify(Object.fromEntries(table.map((o) => [o.operationId, o])), null, 2)} as const satisfies Record<OperationId, OperationEntry>;
`;
}

function renderContract(facts: Record<string, unknown>): string {
  const shared = facts.shared as Record<string, unknown>;
  const lines = [tsHeader];
  lines.push('/** The transaction state machine: `x-state-machine` of `TransactionStatus`. */');
  lines.push(`export const stateMachine = ${JSON.stringify(shared.stateMachine, null, 2)} as const;\n`);
  lines.push('/** ADR-008: the status the checkout verifications (A2, A3) report for each transaction status (`x-reported-as`). */');
  lines.push(`export const checkoutStatusOf = ${JSON.stringify(shared.checkoutStatusOf, null, 2)} as const;\n`);
  lines.push('/** The error code catalogue: `ErrorCode`, each code with its one HTTP status. */');
  lines.push(`export const errorCatalog = ${JSON.stringify(shared.errorCatalog, null, 2)} as const;\n`);
  lines.push('export type ErrorCode = keyof typeof errorCatalog;\n');
  lines.push('/** Signing and retry rules of webhook delivery: `x-webhook-delivery` of `WebhookHeaders`. */');
  lines.push(`export const webhookDelivery = ${JSON.stringify(shared.webhookDelivery, null, 2)} as const;\n`);
  lines.push('/** Lifetime of a session token, in seconds (`x-token-lifetime-seconds` of the `SessionToken` scheme). */');
  lines.push(`export const tokenLifetimeSeconds = ${JSON.stringify(shared.tokenLifetimeSeconds)} as const;\n`);
  lines.push('/** The largest request body accepted, in bytes (`x-max-body-bytes`). */');
  lines.push(`export const maxBodyBytes = ${JSON.stringify(shared.maxBodyBytes)} as const;\n`);
  lines.push("/** The most `error.details` entries of an error body (`maxItems` of the `Error` schema's `details`). */");
  lines.push(`export const maxErrorDetails = ${JSON.stringify(shared.maxErrorDetails)} as const;\n`);
  lines.push(
    "/** The longest URL the hosted checkout page goes to (`maxLength` of `PaymentIntentRequest`'s `redirect_url` and `origin`). */",
  );
  lines.push(`export const maxPaymentIntentUrlLength = ${JSON.stringify(shared.maxPaymentIntentUrlLength)} as const;\n`);
  lines.push(
    '/** The amount range (`x-amount-range`, ADR-006), and `rule`: the detail message of an amount outside it (the error message is `<property> <rule>`). */',
  );
  lines.push(`export const amountRange = ${JSON.stringify(shared.amountRange, null, 2)} as const;\n`);
  lines.push(
    "/** Error precedence (`x-error-precedence` of `ErrorCode`, ADR-057): the stages in the order they run, and the order of the failing members' codes. */",
  );
  lines.push(`export const errorPrecedence = ${JSON.stringify(shared.errorPrecedence, null, 2)} as const;\n`);
  lines.push(`/**
 * ADR-057: of \`items\` (at least one), the first whose code comes first in \`errorPrecedence.members\`;
 * a code not listed there ranks after every listed one, and ties keep the order given. The one
 * ranking the server (the answer's code) and the conformance suite (the code it expects) both use.
 */
export function firstByPrecedence<T>(items: readonly T[], codeOf: (item: T) => string): T {
  const members: readonly string[] = errorPrecedence.members;
  const rank = (item: T): number => {
    const i = members.indexOf(codeOf(item));
    return i === -1 ? members.length : i;
  };
  if (items.length === 0) throw new Error('firstByPrecedence: no items to rank');
  let win: T = items[0]!;
  for (const item of items) if (rank(item) < rank(win)) win = item;
  return win;
}
`);
  lines.push('/** Per variant: each operation (method, path, success status, error codes by status), rate limits, webhook events. */');
  const perVariant = Object.fromEntries(Object.entries(facts).filter(([k]) => k !== 'shared'));
  lines.push(`export const variants = ${JSON.stringify(perVariant, null, 2)} as const;\n`);
  lines.push('export type VariantKey = keyof typeof variants;');
  lines.push('export type OperationId<V extends VariantKey = VariantKey> = keyof (typeof variants)[V]["operations"];\n');
  return lines.join('\n');
}

/**
 * The bundled document as a module holding its JSON text: `JSON.parse` of it costs milliseconds
 * where parsing the YAML costs a few hundred at every start (issue "first contact"). It is the YAML
 * document exactly: refused here if the two would differ.
 */
function renderDocumentModule(variant: Variant, yamlText: string): string {
  const doc: unknown = YAML.parse(yamlText);
  const json = JSON.stringify(doc);
  if (!isDeepStrictEqual(JSON.parse(json), doc)) throw new Error(`generated/v${variant}: the bundled document does not survive JSON`);
  return `${tsHeader}
/** The bundled document of Variant ${variant} (\`openapi.yaml\` beside this file) as JSON text, parsed once by \`loadBundledDocument\`. */
export const documentText = ${JSON.stringify(json)};
`;
}

function renderIndex(variants: Variant[]): string {
  return `${tsHeader}import { fileURLToPath } from 'node:url';
${variants.map((v) => `import { documentText as v${v}Text } from './v${v}/document.ts';`).join('\n')}

export * from './contract.ts';
${variants
  .map(
    (v) => `export { createMerchantClientV${v}, type MerchantClientV${v} } from './v${v}/client.ts';
export type * as V${v} from './v${v}/schema.d.ts';`,
  )
  .join('\n')}

export type Variant = ${variants.join(' | ')};
export const VARIANTS: readonly Variant[] = [${variants.join(', ')}];

/** Absolute path of the bundled OpenAPI document of a variant. */
export function bundledDocumentPath(variant: Variant): string {
  return fileURLToPath(new URL(\`./v\${variant}/openapi.yaml\`, import.meta.url));
}

const texts: Record<Variant, string> = { ${variants.map((v) => `${v}: v${v}Text`).join(', ')} };
const cache = new Map<Variant, Record<string, unknown>>();
/** The bundled OpenAPI document of a variant, parsed once from its JSON text (a fresh deep copy each call). */
export function loadBundledDocument(variant: Variant): Record<string, unknown> {
  let doc = cache.get(variant);
  if (!doc) {
    doc = JSON.parse(texts[variant]) as Record<string, unknown>;
    cache.set(variant, doc);
  }
  return structuredClone(doc);
}
`;
}

async function listExisting(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: string[] = [];
  for (const e of entries) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...(await listExisting(path.join(dir, e.name), rel)));
    else if (e.name !== 'README.md') out.push(rel);
  }
  return out;
}

/** Files whose content differs from what `generate` would write (missing, changed or stale). */
export async function staleGenerated(): Promise<string[]> {
  const files = await renderGenerated();
  const stale: string[] = [];
  for (const [rel, content] of files) {
    const current = await readFile(path.join(GENERATED_DIR, rel), 'utf8').catch(() => null);
    if (current !== content) stale.push(rel);
  }
  for (const rel of await listExisting(GENERATED_DIR)) if (!files.has(rel)) stale.push(`${rel} (not generated any more)`);
  const rules = await readFile(RULES_INDEX, 'utf8').catch(() => null);
  if (rules !== (await renderRuleIndex(HEADER_LINES))) stale.push(path.relative(GENERATED_DIR, RULES_INDEX));
  return stale.sort();
}

async function main(): Promise<void> {
  if (process.argv.includes('--check')) {
    const stale = await staleGenerated();
    if (stale.length > 0) {
      console.error(`generated/ is out of date with spec/ — run \`npm run generate\`:\n  ${stale.join('\n  ')}`);
      process.exit(1);
    }
    console.log('generated/ is up to date with spec/');
    return;
  }
  console.log(await writeGenerated());
}

/** Writes generated/ and spec/RULES.md from spec/; returns the line to log. */
export async function writeGenerated(): Promise<string> {
  const files = await renderGenerated();
  for (const [rel, content] of files) {
    const target = path.join(GENERATED_DIR, rel);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  await writeFile(RULES_INDEX, await renderRuleIndex(HEADER_LINES));
  return `generated ${files.size} files in ${path.relative(ROOT, GENERATED_DIR)}/ and ${path.relative(ROOT, RULES_INDEX)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
