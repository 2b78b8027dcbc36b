/**
 * One fact, one place: the copies of a fact that generic tools and readers need in their own
 * keywords. Each fact is stated once in spec/ (`spec/components/facts/` or one extension); where a
 * JSON Schema `minimum`/`maximum`/`const`, a header `const`, an example or a message must repeat
 * it, the copy is derived from the fact: `npm run lint` refuses a copy that disagrees, and
 * `npm run lint -- --fix` writes the derived value into the spec/ file that holds the copy
 * (ADR-086). The copies:
 *  - the amount range (`x-amount-range`): a schema's `minimum`/`maximum` beside it, the messages
 *    and details of the out-of-range error examples, the sandbox scenarios' edge amount (the
 *    smallest amount above the range) and their magic totals inside the range;
 *  - the token lifetime (`x-token-lifetime-seconds` of `SessionToken`): `const` and examples of
 *    the seed's `expires_in`;
 *  - the rate limit (`x-rate-limit`): the `RateLimit-Policy` and `RateLimit-Limit` headers of its
 *    operation's answers; the 429's one wait (`Retry-After`, `RateLimit-Reset`, `retry_after` and
 *    the message agree in the examples, within the window);
 *  - the failed-authentication limit (`x-auth-failure-limit`): the `AUTH_THROTTLED` examples' wait,
 *    within its window;
 *  - the body limit (`x-max-body-bytes`): the `PAYLOAD_TOO_LARGE` examples;
 *  - the payment window (`paymentWindow` of `x-state-machine`): the confirmation SMS examples;
 *  - a `pattern`: an error example that quotes it (`must match pattern "…"`).
 * And in the source files: the shared facts are `$ref`s to `spec/components/facts/`, the others
 * stated once. A copy is found in the bundled document (`FactCopy.pointer`) and written back to
 * the file under spec/ that the bundle took it from (`fact-sources.ts`).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { SPEC_DIR } from './paths.ts';
import { errorMessage } from '../../lib/error-messages.ts';
import { confirmationSmsText, confirmationSmsValues } from '../../lib/confirmation-sms.ts';
import { maxBodyBytes, operations, resolveRef, stateMachine, tokenLifetimeSeconds } from './contract-facts.ts';
import { specFiles, walk } from './consistency.ts';
import { attempt, child, copyAt, errorExamples, esc, follow, oneWait, responsesOf, type CopyCheck, type FactCopy } from './fact-copy.ts';
import { amountRangeCopies } from './facts-amount.ts';
import { isJson, textOf, type Json } from '../../lib/json.ts';

export { amountRangeCopies } from './facts-amount.ts';
export { problemsOf, type CopyCheck, type FactCopy } from './fact-copy.ts';

/** The seed's response fields that copy the token lifetime (Variant 2's `expires_in`). */
const TOKEN_LIFETIME_COPIES = ['expires_in'];

export function tokenLifetimeCopies(variant: number, doc: Json): CopyCheck {
  const problems: string[] = [];
  const copies: FactCopy[] = [];
  const lifetime = attempt(problems, `Variant ${variant} x-token-lifetime-seconds`, () => tokenLifetimeSeconds(doc));
  if (lifetime === undefined) return { copies, problems };
  const seen = new Set<string>();
  for (const r of responsesOf(doc)) {
    if (!r.status.startsWith('2')) continue;
    const media = child(doc, r.pointer, 'content', 'application/json');
    if (!media || !isJson(media.node)) continue;
    const schema = child(doc, media.pointer, 'schema');
    for (const name of TOKEN_LIFETIME_COPIES) {
      const prop = schema && child(doc, schema.pointer, 'properties', name);
      if (prop && isJson(prop.node) && prop.node.const !== undefined && !seen.has(`${prop.pointer}/const`)) {
        seen.add(`${prop.pointer}/const`);
        copyAt(
          copies,
          variant,
          doc,
          `${prop.pointer}/const`,
          lifetime,
          (v) => `${r.opId} ${r.status}: ${name} const ${textOf(v)} differs from x-token-lifetime-seconds ${lifetime}`,
        );
      }
      for (const exName of Object.keys(media.node.examples ?? {})) {
        const value = child(doc, media.pointer, 'examples', exName, 'value');
        if (!value || !isJson(value.node) || value.node[name] === undefined || seen.has(`${value.pointer}/${name}`)) continue;
        seen.add(`${value.pointer}/${name}`);
        copyAt(
          copies,
          variant,
          doc,
          `${value.pointer}/${name}`,
          lifetime,
          (v) => `${r.opId} ${r.status}: example ${exName} has ${name} ${textOf(v)}, x-token-lifetime-seconds is ${lifetime}`,
        );
      }
    }
  }
  return { copies, problems };
}

function header(headers: Json, name: string): string | undefined {
  return Object.keys(headers).find((k) => k.toLowerCase() === name.toLowerCase());
}

/** `retry_after` `const`s anywhere in a schema (its `$ref`s followed). */
function retryAfterConsts(doc: Json, pointer: string, out: unknown[] = [], depth = 0): unknown[] {
  const at = follow(doc, pointer);
  if (depth > 32) return out;
  if (Array.isArray(at.node)) at.node.forEach((_, i) => retryAfterConsts(doc, `${at.pointer}/${i}`, out, depth + 1));
  else if (isJson(at.node)) {
    const retry = child(doc, at.pointer, 'properties', 'retry_after');
    if (retry && isJson(retry.node) && retry.node.const !== undefined) out.push(retry.node.const);
    for (const k of Object.keys(at.node)) if (k !== 'properties') retryAfterConsts(doc, `${at.pointer}/${esc(k)}`, out, depth + 1);
    for (const k of Object.keys(at.node.properties ?? {})) retryAfterConsts(doc, `${at.pointer}/properties/${esc(k)}`, out, depth + 1);
  }
  return out;
}

/**
 * The copies of `x-rate-limit` (policy, limit) in its operation's answers, and the one wait
 * of a 429 (ADR-006): the time left in the window, so never a `const`; the examples of
 * `Retry-After`, `RateLimit-Reset`, `retry_after` and the message's number are one value
 * no longer than the window.
 */
export function rateLimitCopies(variant: number, doc: Json): CopyCheck {
  const problems: string[] = [];
  const copies: FactCopy[] = [];
  const seen = new Set<string>();
  for (const r of responsesOf(doc)) {
    const rl = r.operation['x-rate-limit'] ? resolveRef(doc, r.operation['x-rate-limit']) : undefined;
    if (!rl) continue;
    const where = `${r.opId} ${r.status}`;
    const policy = `${String(rl.limit)};w=${String(rl.windowSeconds)}`;
    const resp = follow(doc, r.pointer).node as Json;
    const headers = (resp.headers ?? {}) as Json;
    for (const [name, expected] of [
      ['RateLimit-Policy', policy],
      ['RateLimit-Limit', rl.limit],
    ] as const) {
      const key = header(headers, name);
      const h = key === undefined ? undefined : child(doc, r.pointer, 'headers', key);
      if (!h || !isJson(h.node)) continue;
      const schema = child(doc, h.pointer, 'schema');
      if (schema && isJson(schema.node) && schema.node.const !== undefined && !seen.has(`${schema.pointer}/const`)) {
        seen.add(`${schema.pointer}/const`);
        copyAt(
          copies,
          variant,
          doc,
          `${schema.pointer}/const`,
          expected,
          (v) => `${where}: header ${name} const ${textOf(v)} differs from x-rate-limit (${String(expected)})`,
        );
      }
      if (h.node.example !== undefined && !seen.has(`${h.pointer}/example`)) {
        seen.add(`${h.pointer}/example`);
        copyAt(
          copies,
          variant,
          doc,
          `${h.pointer}/example`,
          expected,
          (v) => `${where}: header ${name} example ${textOf(v)} differs from x-rate-limit (${String(expected)})`,
        );
      }
    }
    const media = child(doc, r.pointer, 'content', 'application/json');
    if (media) {
      for (const c of retryAfterConsts(doc, `${media.pointer}/schema`))
        problems.push(
          `Variant ${variant} ${where}: retry_after const ${String(c)}: the wait is the time left in the window, not a constant (ADR-006)`,
        );
    }
    if (r.status !== '429' || seen.has(r.pointer)) continue;
    seen.add(r.pointer);
    const waits: Array<{ pointer: string; what: string; form?: (wait: number) => string }> = [];
    for (const name of ['Retry-After', 'RateLimit-Reset']) {
      const key = header(headers, name);
      const h = key === undefined ? undefined : child(doc, r.pointer, 'headers', key);
      if (!h || !isJson(h.node)) continue;
      if (h.node.example !== undefined) waits.push({ pointer: `${h.pointer}/example`, what: `header ${name} example` });
      const schema = child(doc, h.pointer, 'schema');
      if (schema && isJson(schema.node) && schema.node.const !== undefined)
        problems.push(
          `Variant ${variant} ${where}: header ${name} const: the wait is the time left in the window, not a constant (ADR-006)`,
        );
    }
    for (const exName of Object.keys((media?.node as Json | undefined)?.examples ?? {})) {
      const error = child(doc, media!.pointer, 'examples', exName, 'value', 'error');
      if (!error || !isJson(error.node) || error.node.code !== 'RATE_LIMIT_EXCEEDED') continue;
      waits.push({ pointer: `${error.pointer}/retry_after`, what: `example ${exName} retry_after` });
      waits.push({
        pointer: `${error.pointer}/message`,
        what: `example ${exName} message`,
        form: (wait) => errorMessage('RATE_LIMIT_EXCEEDED', { seconds: wait }),
      });
    }
    oneWait(variant, doc, where, Number(rl.windowSeconds), waits, copies);
  }
  for (const [opId, op] of Object.entries(operations(doc))) {
    const rl = (child(doc, `#/paths/${esc(op.path)}`, op.method.toLowerCase())!.node as Json)['x-rate-limit'];
    if (rl !== undefined && resolveRef(doc, rl).retryAfterSeconds !== undefined)
      problems.push(
        `Variant ${variant} ${opId}: x-rate-limit retryAfterSeconds: the wait of a 429 is the time left in the window, not a fixed number (ADR-006)`,
      );
  }
  return { copies, problems };
}

/** The `AUTH_THROTTLED` examples (ADR-027): their `retry_after` and message's number one wait within `x-auth-failure-limit`'s window. */
export function authThrottleCopies(variant: number, doc: Json): CopyCheck {
  const copies: FactCopy[] = [];
  const problems: string[] = [];
  const schemes = ((doc.components as Json).securitySchemes ?? {}) as Json;
  const limits = Object.values(schemes)
    .map((s) => resolveRef(doc, s)['x-auth-failure-limit'])
    .filter((l) => l !== undefined)
    .map((l) => resolveRef(doc, l));
  const window = limits[0]?.windowSeconds;
  if (typeof window !== 'number') return { copies, problems };
  // every operation behind a throttled scheme may answer it, whatever credential it carries
  for (const [opId, op] of Object.entries(operations(doc)))
    if (op.security.some((name) => schemes[name] !== undefined && resolveRef(doc, schemes[name])['x-auth-failure-limit'] !== undefined))
      if (!op.errors['429']?.includes('AUTH_THROTTLED'))
        problems.push(
          `Variant ${variant} ${opId}: no 429 AUTH_THROTTLED response; its security scheme has x-auth-failure-limit, so it answers one once the address is throttled (ADR-027: $ref components/responses/AuthThrottled.yaml)`,
        );
  for (const ex of errorExamples(doc)) {
    if (ex.error.code !== 'AUTH_THROTTLED') continue;
    const error = `${ex.pointer}/value/error`;
    oneWait(
      variant,
      doc,
      'AUTH_THROTTLED',
      window,
      [
        { pointer: `${error}/retry_after`, what: 'retry_after' },
        {
          pointer: `${error}/message`,
          what: 'message',
          form: (wait) => errorMessage('AUTH_THROTTLED', { seconds: wait }),
        },
      ],
      copies,
    );
  }
  return { copies, problems };
}

export function bodyLimitCopies(variant: number, doc: Json): CopyCheck {
  const problems: string[] = [];
  const copies: FactCopy[] = [];
  const bytes = attempt(problems, `Variant ${variant} x-max-body-bytes`, () => maxBodyBytes(doc));
  if (bytes === undefined) return { copies, problems };
  const message = errorMessage('PAYLOAD_TOO_LARGE', { kB: bytes / 1024 });
  for (const ex of errorExamples(doc)) {
    if (ex.error.code !== 'PAYLOAD_TOO_LARGE') continue;
    copyAt(
      copies,
      variant,
      doc,
      `${ex.pointer}/value/error/message`,
      message,
      (v) => `message "${String(v)}" differs from x-max-body-bytes ${bytes} (${bytes / 1024} kB)`,
    );
  }
  return { copies, problems };
}

/** The confirmation SMS shown in examples (a `body` the server's text matches) says the default payment window. */
export function paymentWindowCopies(variant: number, doc: Json): CopyCheck {
  const copies: FactCopy[] = [];
  const window = (stateMachine(doc).paymentWindow as Json | undefined)?.defaultSeconds;
  if (typeof window !== 'number') return { copies, problems: [`Variant ${variant} x-state-machine: no paymentWindow defaultSeconds`] };
  const visit = (node: unknown, pointer: string): void => {
    if (Array.isArray(node)) node.forEach((n, i) => visit(n, `${pointer}/${i}`));
    else if (isJson(node))
      for (const [k, v] of Object.entries(node)) {
        const values = k === 'body' && typeof v === 'string' ? confirmationSmsValues(v) : null;
        if (values) {
          const expected = confirmationSmsText({ ...values, windowSeconds: window });
          copyAt(
            copies,
            variant,
            doc,
            `${pointer}/body`,
            expected,
            (x) => `SMS "${String(x)}" does not say the ${window} s payment window (x-state-machine paymentWindow)`,
          );
        } else visit(v, `${pointer}/${esc(k)}`);
      }
  };
  visit(doc, '#');
  return { copies, problems: [] };
}

/**
 * Every copy of every fact in a variant's bundled document, each with the value its fact gives it.
 * @rule ADR-086
 */
export function factCopies(variant: number, doc: Json): CopyCheck {
  const checks = [amountRangeCopies, tokenLifetimeCopies, rateLimitCopies, authThrottleCopies, bodyLimitCopies, paymentWindowCopies].map(
    (f) => f(variant, doc),
  );
  return { copies: checks.flatMap((c) => c.copies), problems: checks.flatMap((c) => c.problems) };
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

// ---- the source side ----

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

export async function checkFactStatementsInSpec(specDir = SPEC_DIR): Promise<string[]> {
  const files = await Promise.all(
    (await specFiles(specDir)).map(async (file) => ({
      rel: path.relative(specDir, file),
      doc: YAML.parse(await readFile(file, 'utf8')) as unknown,
    })),
  );
  return checkFactStatements(files);
}
