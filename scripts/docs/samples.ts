/**
 * Code samples (`x-codeSamples`) for every operation, generated from the spec: the request body is
 * the operation's first request example, path parameters take their parameter example, the auth
 * header comes from the operation's first security requirement. Two languages: `curl` and the typed
 * TypeScript client of generated/ (openapi-fetch). Nothing here is written by hand per operation.
 */
import { deref } from '../lib/consistency.ts';

type Json = Record<string, unknown>;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;

export interface CodeSample {
  lang: string;
  label: string;
  source: string;
}

export interface OperationRef {
  operationId: string;
  method: string;
  path: string;
  operation: Json;
  pathItem: Json;
}

/** Every operation of a bundled document, in document order. */
export function listOperations(doc: Json): OperationRef[] {
  const out: OperationRef[] = [];
  for (const [p, rawItem] of Object.entries((doc.paths ?? {}) as Json)) {
    const pathItem = deref(doc, rawItem) as Json;
    for (const m of HTTP_METHODS) {
      const op = pathItem[m] as Json | undefined;
      if (!op) continue;
      out.push({ operationId: String(op.operationId), method: m.toUpperCase(), path: p, operation: op, pathItem });
    }
  }
  return out;
}

/** The sandbox server (test keys), else the first server. */
export function sampleBaseUrl(doc: Json): string {
  const servers = (doc.servers ?? []) as Array<{ url: string; description?: string }>;
  const sandbox = servers.find((s) => /^https:\/\/sandbox\./.test(s.url)) ?? servers[0];
  if (!sandbox) throw new Error('the document has no servers');
  return sandbox.url;
}

interface AuthHeader {
  header: string;
  envVar: string;
  tsVar: string;
}

/** The header of the operation's first security requirement (or of the document's default). */
export function authHeader(doc: Json, op: Json): AuthHeader | null {
  const security = (op.security ?? doc.security ?? []) as Array<Record<string, unknown>>;
  const first = security[0];
  if (!first) return null;
  const schemeName = Object.keys(first)[0];
  if (!schemeName) return null;
  const schemes = ((doc.components as Json | undefined)?.securitySchemes ?? {}) as Json;
  const scheme = deref(doc, schemes[schemeName]) as Json | undefined;
  if (!scheme || scheme.type !== 'apiKey' || scheme.in !== 'header') {
    throw new Error(`security scheme ${schemeName} is not an API key header; samples do not know how to send it`);
  }
  const header = String(scheme.name);
  const isToken = /session-token/i.test(header);
  return isToken
    ? { header, envVar: 'PAYLATER_SESSION_TOKEN', tsVar: 'sessionToken' }
    : { header, envVar: 'PAYLATER_API_KEY', tsVar: 'apiKey' };
}

function firstExample(media: Json | undefined): unknown {
  if (!media) return undefined;
  if ('example' in media) return media.example;
  const examples = media.examples as Json | undefined;
  if (examples) {
    const first = Object.values(examples)[0] as Json | undefined;
    if (first && 'value' in first) return first.value;
  }
  return undefined;
}

interface ParamValue {
  name: string;
  in: string;
  value: unknown;
}

function parameterValues(doc: Json, ref: OperationRef): ParamValue[] {
  const params = [...((ref.pathItem.parameters ?? []) as unknown[]), ...((ref.operation.parameters ?? []) as unknown[])].map(
    (p) => deref(doc, p) as Json,
  );
  const out: ParamValue[] = [];
  for (const p of params) {
    const schema = (p.schema ?? {}) as Json;
    const value = p.example ?? firstExample(p) ?? schema.example ?? (schema.examples as unknown[] | undefined)?.[0];
    if (value === undefined) {
      if (p.required) throw new Error(`${ref.operationId}: required parameter ${String(p.name)} has no example`);
      continue;
    }
    out.push({ name: String(p.name), in: String(p.in), value });
  }
  return out;
}

/** The JSON request body example of the operation, or undefined when it has no body. */
export function requestExample(doc: Json, op: Json, operationId: string): unknown {
  const body = deref(doc, op.requestBody) as Json | undefined;
  if (!body) return undefined;
  const media = (body.content as Json | undefined)?.['application/json'] as Json | undefined;
  const value = firstExample(media);
  if (value === undefined && body.required) throw new Error(`${operationId}: required request body has no example`);
  return value;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

export function curlSample(doc: Json, ref: OperationRef): string {
  const params = parameterValues(doc, ref);
  let url = ref.path;
  for (const p of params.filter((x) => x.in === 'path')) url = url.replace(`{${p.name}}`, encodeURIComponent(String(p.value)));
  const query = params.filter((x) => x.in === 'query');
  if (query.length) url += `?${query.map((q) => `${encodeURIComponent(q.name)}=${encodeURIComponent(String(q.value))}`).join('&')}`;
  const lines = [`curl -X ${ref.method} "${sampleBaseUrl(doc)}${url}"`];
  const auth = authHeader(doc, ref.operation);
  if (auth) lines.push(`  -H "${auth.header}: $${auth.envVar}"`);
  for (const h of params.filter((x) => x.in === 'header')) lines.push(`  -H ${shellQuote(`${h.name}: ${String(h.value)}`)}`);
  const body = requestExample(doc, ref.operation, ref.operationId);
  if (body !== undefined) {
    lines.push('  -H "Content-Type: application/json"');
    lines.push(`  --data ${shellQuote(JSON.stringify(body, null, 2))}`);
  }
  return lines.join(' \\\n');
}

function tsLiteral(value: unknown, indent: string): string {
  // JSON is a TS literal; object keys are quoted only when they are not identifiers.
  const json = JSON.stringify(value, null, 2);
  return json
    .replace(/^( *)"([A-Za-z_$][A-Za-z0-9_$]*)":/gm, '$1$2:')
    .split('\n')
    .map((l, i) => (i === 0 ? l : indent + l))
    .join('\n');
}

function tsKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : `'${name}'`;
}

/** The import the samples show (relative to the package root; the type-check test rewrites it). */
export const SAMPLE_IMPORT_FROM = './generated/index.ts';

export function typescriptSample(doc: Json, ref: OperationRef, variant: 1 | 2): string {
  const factory = `createMerchantClientV${variant}`;
  const params = parameterValues(doc, ref);
  const auth = authHeader(doc, ref.operation);
  const body = requestExample(doc, ref.operation, ref.operationId);
  const init: string[] = [];
  const groups: Record<string, ParamValue[]> = {};
  for (const p of params) (groups[p.in] ??= []).push(p);
  const paramLines: string[] = [];
  for (const where of ['path', 'query', 'header'] as const) {
    const ps = groups[where];
    if (!ps?.length) continue;
    paramLines.push(`    ${where}: { ${ps.map((p) => `${tsKey(p.name)}: ${JSON.stringify(p.value)}`).join(', ')} },`);
  }
  if (paramLines.length) init.push(`  params: {\n${paramLines.join('\n')}\n  },`);
  if (body !== undefined) init.push(`  body: ${tsLiteral(body, '  ')},`);
  if (auth) init.push(`  headers: { '${auth.header}': ${auth.tsVar} },`);
  const lines = [
    `import { ${factory} } from '${SAMPLE_IMPORT_FROM}';`,
    '',
    `const client = ${factory}({ baseUrl: '${sampleBaseUrl(doc)}' });`,
  ];
  if (auth) lines.push(`const ${auth.tsVar} = process.env.${auth.envVar} ?? '';`);
  lines.push(
    '',
    init.length
      ? `const { data, error, response } = await client.${ref.method}('${ref.path}', {\n${init.join('\n')}\n});`
      : `const { data, error, response } = await client.${ref.method}('${ref.path}');`,
    `if (error) throw new Error(\`\${response.status} \${error.error.code}: \${error.error.message}\`);`,
    'console.log(data);',
  );
  return lines.join('\n');
}

export function codeSamples(doc: Json, ref: OperationRef, variant: 1 | 2): CodeSample[] {
  return [
    { lang: 'Shell', label: 'curl', source: curlSample(doc, ref) },
    { lang: 'TypeScript', label: 'TypeScript client', source: typescriptSample(doc, ref, variant) },
  ];
}
