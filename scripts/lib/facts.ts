/**
 * One fact, one place: the lint checks for the copies of a fact that generic tools need in
 * their own keywords. Each fact is stated once in spec/ (`spec/components/facts/` or one
 * extension); where a JSON Schema `minimum`/`maximum`/`const`, a header `const` or an example
 * must repeat it, these checks fail when the copy disagrees with the fact:
 *  - the amount range (`x-amount-range`): a schema's `minimum`/`maximum` beside it, a
 *    `pattern` that would encode it, and the messages of the out-of-range error examples;
 *  - the token lifetime (`x-token-lifetime-seconds` of `SessionToken`): `const` and examples
 *    of the seed's `expires_in`;
 *  - the rate limit (`x-rate-limit`): the `RateLimit-Policy` and `RateLimit-Limit` headers
 *    of its operation's answers, and the 429's one wait (`Retry-After`, `RateLimit-Reset`,
 *    `retry_after` and the message agree in the examples);
 *  - the body limit (`x-max-body-bytes`): the `PAYLOAD_TOO_LARGE` examples;
 *  - a `pattern`: an error example that quotes it (`must match pattern "…"`).
 * And in the source files: the shared facts are `$ref`s to `spec/components/facts/`, the
 * others stated once.
 * Each check returns human-readable problems; an empty list means every copy agrees.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { SPEC_DIR } from './paths.ts';
import { centimesOf, formatCentimes } from '../../lib/money.ts';
import {
  amountRange,
  amountRangeUses,
  errorCatalog,
  maxBodyBytes,
  operations,
  resolveRef,
  tokenLifetimeSeconds,
  type AmountRange,
} from './contract-facts.ts';
import { deref, specFiles, walk } from './consistency.ts';
import { textOf } from '../../lib/json.ts';

type Json = Record<string, unknown>;

/** The seed's response fields that copy the token lifetime (Variant 2's `expires_in`). */
const TOKEN_LIFETIME_COPIES = ['expires_in'];

function attempt<T>(problems: string[], label: string, read: () => T): T | undefined {
  try {
    return read();
  } catch (e) {
    problems.push(`${label}: ${(e as Error).message}`);
    return undefined;
  }
}

/** Every error example of the document (`{ value: { error: { code } } }`), with its JSON pointer. */
function errorExamples(doc: Json): Array<{ pointer: string; error: Json }> {
  const out: Array<{ pointer: string; error: Json }> = [];
  const visit = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${pointer}/${i}`));
    else if (node && typeof node === 'object') {
      const error = ((node as Json).value as Json | undefined)?.error as Json | undefined;
      if (error && typeof error.code === 'string') out.push({ pointer, error });
      for (const [k, v] of Object.entries(node as Json)) visit(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    }
  };
  visit(doc, '#');
  return out;
}

/** The numbers written in a text (`1,000` read as 1000). */
function numbersIn(text: string): number[] {
  return [...text.matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((m) => Number(m[0].replace(/,/g, '')));
}

export function checkAmountRangeCopies(variant: number, doc: Json): string[] {
  const problems: string[] = [];
  const range = attempt(problems, `Variant ${variant} x-amount-range`, () => amountRange(doc));
  if (!range) return problems;
  const catalog = errorCatalog(doc);
  const currencies = (((doc.components as Json).schemas as Json).Currency as Json | undefined)?.enum as unknown[] | undefined;
  if (currencies && !currencies.includes(range.currency))
    problems.push(
      `Variant ${variant} x-amount-range: currency ${range.currency} is not one of the Currency enum [${currencies.join(', ')}]`,
    );
  const codes = new Map<string, string>(); // out-of-range code → property
  for (const use of amountRangeUses(doc)) {
    const where = `Variant ${variant} ${use.pointer}`;
    const s = use.schema;
    for (const key of ['minimum', 'maximum'] as const) {
      if (s[key] !== undefined && s[key] !== range[key])
        problems.push(`${where}: ${key} ${textOf(s[key])} differs from x-amount-range ${key} ${range[key]}`);
    }
    if (typeof s.pattern === 'string') {
      const re = new RegExp(s.pattern, 'u');
      for (const c of [centimesOf(range.minimum)! - 1, centimesOf(range.maximum)! + 1]) {
        if (c >= 0 && !re.test(formatCentimes(c)))
          problems.push(
            `${where}: pattern refuses ${formatCentimes(c)}, so it encodes the amount range again (let it check only the decimal form)`,
          );
      }
    }
    const business = s['x-business-rule'] as Json | undefined;
    const code = business ? business.code : s['x-error-code'];
    if (typeof code !== 'string' || !catalog[code]) {
      problems.push(`${where}: x-amount-range needs an x-error-code or an x-business-rule code from the catalogue`);
      continue;
    }
    if (business && business.status !== catalog[code].status)
      problems.push(`${where}: x-business-rule status ${String(business.status)} differs from ${code}'s ${catalog[code].status}`);
    const segments = use.pointer.split('/');
    if (segments.at(-2) !== 'properties') problems.push(`${where}: x-amount-range belongs on an object property`);
    else if (business) codes.set(code, segments.at(-1)!);
    else if (!codes.has(code)) codes.set(code, segments.at(-1)!);
  }
  for (const ex of errorExamples(doc)) checkRangeExample(problems, `Variant ${variant} ${ex.pointer}`, ex.error, codes, range);
  return problems;
}

/** An example of an out-of-range code shows exactly the server's answer: `<property> <rule>`, detail `<rule>`. */
function checkRangeExample(problems: string[], where: string, error: Json, codes: Map<string, string>, range: AmountRange): void {
  const property = codes.get(error.code as string);
  if (property === undefined) return;
  const message = `${property} ${range.rule}`;
  if (error.message !== message) problems.push(`${where}: message "${String(error.message)}" differs from the amount range's "${message}"`);
  for (const d of (error.details as Json[] | undefined) ?? []) {
    if (d.path === `/${property}` && d.message !== range.rule)
      problems.push(`${where}: detail "${String(d.message)}" differs from the amount range's "${range.rule}"`);
  }
}

export function checkTokenLifetimeCopies(variant: number, doc: Json): string[] {
  const problems: string[] = [];
  const lifetime = attempt(problems, `Variant ${variant} x-token-lifetime-seconds`, () => tokenLifetimeSeconds(doc));
  if (lifetime === undefined) return problems;
  for (const [opId, op] of Object.entries(operations(doc))) {
    const operation = resolveRef(doc, (doc.paths as Json)[op.path])[op.method.toLowerCase()] as Json;
    for (const [status, respRef] of Object.entries(operation.responses as Json)) {
      if (!status.startsWith('2')) continue;
      const media = ((resolveRef(doc, respRef).content as Json | undefined)?.['application/json'] ?? {}) as Json;
      const props = ((deref(doc, media.schema) as Json | undefined)?.properties ?? {}) as Json;
      for (const name of TOKEN_LIFETIME_COPIES) {
        const c = (props[name] as Json | undefined)?.const;
        if (c !== undefined && c !== lifetime)
          problems.push(
            `Variant ${variant} ${opId} ${status}: ${name} const ${textOf(c)} differs from x-token-lifetime-seconds ${lifetime}`,
          );
        for (const [exName, exRef] of Object.entries((media.examples ?? {}) as Json)) {
          const v = ((resolveRef(doc, exRef).value ?? {}) as Json)[name];
          if (v !== undefined && v !== lifetime)
            problems.push(
              `Variant ${variant} ${opId} ${status}: example ${exName} has ${name} ${textOf(v)}, x-token-lifetime-seconds is ${lifetime}`,
            );
        }
      }
    }
  }
  return problems;
}

function header(headers: Json, name: string): Json | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : (headers[key] as Json);
}

/** `retry_after` `const`s anywhere in a (dereferenced) schema. */
function retryAfterConsts(schema: unknown, out: unknown[] = []): unknown[] {
  if (Array.isArray(schema)) schema.forEach((s) => retryAfterConsts(s, out));
  else if (schema && typeof schema === 'object') {
    const retry = ((schema as Json).properties as Json | undefined)?.retry_after as Json | undefined;
    if (retry?.const !== undefined) out.push(retry.const);
    for (const v of Object.values(schema as Json)) retryAfterConsts(v, out);
  }
  return out;
}

/**
 * The copies of `x-rate-limit` (policy, limit) in its operation's answers, and the one wait
 * of a 429 (ADR-006): the time left in the window, so never a `const`; the examples of
 * `Retry-After`, `RateLimit-Reset`, `retry_after` and the message's number are one value
 * no longer than the window.
 */
export function checkRateLimitCopies(variant: number, doc: Json): string[] {
  const problems: string[] = [];
  for (const [opId, op] of Object.entries(operations(doc))) {
    const operation = resolveRef(doc, (doc.paths as Json)[op.path])[op.method.toLowerCase()] as Json;
    const rl = operation['x-rate-limit'] ? resolveRef(doc, operation['x-rate-limit']) : undefined;
    if (!rl) continue;
    const policy = `${String(rl.limit)};w=${String(rl.windowSeconds)}`;
    const copies: Array<[string, unknown]> = [
      ['RateLimit-Policy', policy],
      ['RateLimit-Limit', rl.limit],
    ];
    if (rl.retryAfterSeconds !== undefined)
      problems.push(
        `Variant ${variant} ${opId}: x-rate-limit retryAfterSeconds: the wait of a 429 is the time left in the window, not a fixed number (ADR-006)`,
      );
    for (const [status, respRef] of Object.entries(operation.responses as Json)) {
      const where = `Variant ${variant} ${opId} ${status}`;
      const resp = deref(doc, respRef) as Json;
      const headers = (resp.headers ?? {}) as Json;
      for (const [name, expected] of copies) {
        const h = header(headers, name);
        if (!h) continue;
        const c = (h.schema as Json | undefined)?.const;
        if (c !== undefined && c !== expected)
          problems.push(`${where}: header ${name} const ${textOf(c)} differs from x-rate-limit (${String(expected)})`);
        if (h.example !== undefined && h.example !== expected)
          problems.push(`${where}: header ${name} example ${textOf(h.example)} differs from x-rate-limit (${String(expected)})`);
      }
      const media = ((resp.content as Json | undefined)?.['application/json'] ?? {}) as Json;
      for (const c of retryAfterConsts(media.schema))
        problems.push(`${where}: retry_after const ${String(c)}: the wait is the time left in the window, not a constant (ADR-006)`);
      if (status !== '429') continue;
      const waits: Array<[string, unknown]> = [];
      for (const name of ['Retry-After', 'RateLimit-Reset']) {
        const h = header(headers, name);
        if (h?.example !== undefined) waits.push([`header ${name} example`, h.example]);
        if ((h?.schema as Json | undefined)?.const !== undefined)
          problems.push(`${where}: header ${name} const: the wait is the time left in the window, not a constant (ADR-006)`);
      }
      for (const [exName, ex] of Object.entries((media.examples ?? {}) as Json)) {
        const error = ((ex as Json).value as Json | undefined)?.error as Json | undefined;
        if (error?.code !== 'RATE_LIMIT_EXCEEDED') continue;
        waits.push([`example ${exName} retry_after`, error.retry_after]);
        for (const n of numbersIn(String(error.message))) waits.push([`example ${exName} message`, n]);
      }
      const first = waits[0];
      for (const [what, v] of waits) {
        if (first && v !== first[1])
          problems.push(`${where}: ${what} says ${String(v)}, ${first[0]} says ${String(first[1])}: one wait (ADR-006)`);
        if (typeof v !== 'number' || v < 1 || v > Number(rl.windowSeconds))
          problems.push(`${where}: ${what} ${String(v)} is not a wait within the ${String(rl.windowSeconds)} s window`);
      }
    }
  }
  return problems;
}

export function checkBodyLimitCopies(variant: number, doc: Json): string[] {
  const problems: string[] = [];
  const bytes = attempt(problems, `Variant ${variant} x-max-body-bytes`, () => maxBodyBytes(doc));
  if (bytes === undefined) return problems;
  for (const ex of errorExamples(doc)) {
    if (ex.error.code !== 'PAYLOAD_TOO_LARGE') continue;
    const text = String(ex.error.message);
    const ok = numbersIn(text).every((n) => (n === bytes / 1024 && /\bkB\b/.test(text)) || (n === bytes && /\bbytes\b/.test(text)));
    if (!ok)
      problems.push(`Variant ${variant} ${ex.pointer}: message "${text}" differs from x-max-body-bytes ${bytes} (${bytes / 1024} kB)`);
  }
  return problems;
}

/** Every error example that quotes a pattern (`must match pattern "…"`, message or detail) quotes one the document has. */
export function checkPatternQuotes(variant: number, doc: Json): string[] {
  const problems: string[] = [];
  const patterns = new Set<string>();
  walk(doc, (key, value) => {
    if (key === 'pattern' && typeof value === 'string') patterns.add(value);
  });
  for (const ex of errorExamples(doc)) {
    const texts = [ex.error.message, ...((ex.error.details as Json[] | undefined) ?? []).map((d) => d.message)];
    for (const text of texts) {
      const quoted = /must match pattern "(.*)"$/.exec(String(text))?.[1];
      if (quoted !== undefined && !patterns.has(quoted))
        problems.push(`Variant ${variant} ${ex.pointer}: quotes pattern "${quoted}", which no schema of the document has`);
    }
  }
  return problems;
}

/** Extensions whose value is a shared fact: every use is a `$ref` to a file of `spec/components/facts/`. */
export const REFERENCED_FACTS = ['x-amount-range', 'x-rate-limit'] as const;
/** Extensions that state a fact in place: at most one use in all of spec/. */
export const SINGLE_FACTS = ['x-token-lifetime-seconds', 'x-max-body-bytes'] as const;

/** The source side of one fact, one place, over parsed spec files (`rel` relative to spec/). */
export function checkFactStatements(files: ReadonlyArray<{ rel: string; doc: unknown }>): string[] {
  const problems: string[] = [];
  const uses = new Map<string, string[]>();
  for (const { rel, doc } of files) {
    walk(doc, (key, value) => {
      if ((REFERENCED_FACTS as readonly string[]).includes(key)) {
        const ref = (value as { $ref?: unknown } | null)?.$ref;
        const only = value !== null && typeof value === 'object' && Object.keys(value).length === 1;
        const target = typeof ref === 'string' ? path.normalize(path.join(path.dirname(rel), ref)) : '';
        if (!only || !target.startsWith(`components${path.sep}facts${path.sep}`))
          problems.push(`${rel}: ${key} must be a $ref to its one statement in spec/components/facts/, not a copy`);
      }
      if ((SINGLE_FACTS as readonly string[]).includes(key)) uses.set(key, [...(uses.get(key) ?? []), rel]);
    });
  }
  for (const [key, where] of uses)
    if (where.length > 1) problems.push(`${key} is stated ${where.length} times (${where.join(', ')}): state it once`);
  return problems;
}

export async function checkFactStatementsInSpec(): Promise<string[]> {
  const files = await Promise.all(
    (await specFiles()).map(async (file) => ({
      rel: path.relative(SPEC_DIR, file),
      doc: YAML.parse(await readFile(file, 'utf8')) as unknown,
    })),
  );
  return checkFactStatements(files);
}
