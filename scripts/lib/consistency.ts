/**
 * Cross-document consistency of the contract, beyond what each linter sees alone:
 *  - the OpenAPI `webhooks` of each variant and the AsyncAPI messages are the same events with the same
 *    payload and header schemas;
 *  - every transition of `x-state-machine` names events that both documents define, and operations that exist;
 *  - every error example uses a code that its response declares, with the catalogue's status;
 *  - every operation declares 400 VALIDATION_ERROR (any request may carry an undeclared query parameter, ADR-022);
 *  - every `x-decision` names an ADR of spec/DECISIONS.md, and every ADR is marked somewhere in the spec;
 *  - every `x-` extension used in spec/ is listed in spec/EXTENSIONS.md.
 * Each check returns human-readable problems; an empty list means consistent.
 */
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { SPEC_DIR } from './paths.ts';
import { errorCatalog, operations, resolveRef, stateMachine } from './contract-facts.ts';

type Json = Record<string, unknown>;

/** Deep-resolves internal `$ref`s of a bundled document (cycles are not expected in this contract). */
export function deref(doc: Json, node: unknown, depth = 0): unknown {
  if (depth > 64) throw new Error('deref: too deep (circular schema?)');
  if (Array.isArray(node)) return node.map((n) => deref(doc, n, depth + 1));
  if (node && typeof node === 'object') {
    const obj = node as Json;
    if (typeof obj.$ref === 'string') {
      const { $ref: _ignored, ...siblings } = obj;
      const target = deref(doc, resolveRef(doc, { $ref: obj.$ref }), depth + 1) as Json;
      return Object.keys(siblings).length ? { ...target, ...(deref(doc, siblings, depth + 1) as Json) } : target;
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, deref(doc, v, depth + 1)]));
  }
  return node;
}

/** Canonical JSON: keys sorted, and the annotations @asyncapi/parser adds (`x-parser-*`) dropped. */
function stable(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Json)
            .filter(([key]) => !key.startsWith('x-parser-'))
            .sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );
}

export interface AsyncMessage {
  name: string;
  payload: unknown;
  headers: unknown;
}

export function checkWebhooksAgainstAsyncApi(variant: number, doc: Json, messages: AsyncMessage[]): string[] {
  const problems: string[] = [];
  const webhooks = (doc.webhooks ?? {}) as Json;
  const names = Object.keys(webhooks).sort();
  const asyncNames = messages.map((m) => m.name).sort();
  if (stable(names) !== stable(asyncNames)) {
    problems.push(`Variant ${variant}: OpenAPI webhooks [${names.join(', ')}] differ from AsyncAPI messages [${asyncNames.join(', ')}]`);
  }
  for (const message of messages) {
    const item = webhooks[message.name] ? resolveRef(doc, webhooks[message.name]) : undefined;
    const post = item?.post as Json | undefined;
    if (!post) continue;
    const body = ((post.requestBody as Json)?.content as Json)?.['application/json'] as Json | undefined;
    const payload = deref(doc, body?.schema);
    if (stable(payload) !== stable(message.payload)) {
      problems.push(`Variant ${variant}: payload of webhook ${message.name} differs between OpenAPI and AsyncAPI`);
    }
    const headerSchema = message.headers as Json;
    const params = ((post.parameters as Json[]) ?? []).map((p) => deref(doc, p) as Json).filter((p) => p.in === 'header');
    const required = new Set((headerSchema.required as string[]) ?? []);
    const props = (headerSchema.properties ?? {}) as Json;
    const paramNames = params.map((p) => String(p.name)).sort();
    if (stable(paramNames) !== stable(Object.keys(props).sort())) {
      problems.push(
        `Variant ${variant}: headers of webhook ${message.name} [${paramNames.join(',')}] differ from AsyncAPI [${Object.keys(props).join(',')}]`,
      );
    }
    for (const p of params) {
      const name = String(p.name);
      if (stable(p.schema) !== stable(props[name]))
        problems.push(`Variant ${variant}: header ${name} of ${message.name} has another schema than in AsyncAPI`);
      if (Boolean(p.required) !== required.has(name))
        problems.push(`Variant ${variant}: header ${name} of ${message.name} differs in required`);
    }
  }
  return problems;
}

export function checkStateMachine(variant: number, doc: Json): string[] {
  const problems: string[] = [];
  const sm = stateMachine(doc);
  const states = Object.keys(sm.states as Json);
  const statusEnum = resolveRef(doc, ((doc.components as Json).schemas as Json).TransactionStatus).enum as string[];
  if (stable([...states].sort()) !== stable([...statusEnum].sort())) {
    problems.push(`x-state-machine states [${states.join(',')}] differ from the TransactionStatus enum [${statusEnum.join(',')}]`);
  }
  const events = new Set(Object.keys(doc.webhooks ?? {}));
  const ops = operations(doc);
  const emitted = new Set<string>();
  for (const t of sm.transitions as Json[]) {
    const id = String(t.id);
    for (const s of [...((t.from as string[] | null) ?? []), t.to as string]) {
      if (!states.includes(s)) problems.push(`transition ${id}: unknown state ${s}`);
    }
    const opId = (t.trigger as Json).operationId as string;
    if (!ops[opId] && !(variant === 2 && opId === 'verifyTransaction'))
      problems.push(`transition ${id}: trigger operation ${opId} is not defined in Variant ${variant}`);
    const emits = t.emits as string | null;
    if (emits !== null) {
      emitted.add(emits);
      if (!events.has(emits)) problems.push(`transition ${id}: emits ${emits}, which no webhook of Variant ${variant} defines`);
    }
  }
  for (const e of events) if (!emitted.has(e)) problems.push(`webhook ${e} is emitted by no transition`);
  for (const r of sm.rejections as Json[]) {
    const opId = (r.trigger as Json).operationId as string;
    const op = ops[opId];
    if (!op) {
      problems.push(`rejection: trigger operation ${opId} is not defined`);
      continue;
    }
    const codes = op.errors[String(r.status)] ?? [];
    if (!codes.includes(String(r.code)))
      problems.push(`rejection of ${opId}: ${String(r.status)} ${String(r.code)} is not declared by the operation`);
  }
  problems.push(...movesAndRejections(sm.transitions as Json[], sm.rejections as Json[]));
  problems.push(...scenarioActions(variant, doc, sm.initial as string, sm.transitions as Json[]));
  return problems;
}

/**
 * A sandbox scenario's customer action goes through the state machine (ADR-043): the operation a
 * magic phone schedules must move a transaction from the status B1 creates it in (a transition
 * removed leaves the scenario driving a refusal).
 */
function scenarioActions(variant: number, doc: Json, initial: string, transitions: Json[]): string[] {
  const problems: string[] = [];
  const moves = new Set(
    transitions.filter((t) => ((t.from as string[] | null) ?? []).includes(initial)).map((t) => (t.trigger as Json).operationId as string),
  );
  for (const [p, item] of Object.entries((doc.paths ?? {}) as Record<string, Json>))
    for (const [method, op] of Object.entries(item))
      for (const phone of (((op as Json)?.['x-sandbox-scenarios'] as Json | undefined)?.customerPhones ?? []) as Json[]) {
        const opId = phone.operationId as string | null;
        if (opId !== null && !moves.has(opId))
          problems.push(
            `Variant ${variant}'s sandbox scenario ${String(phone.customerPhone)} of ${method.toUpperCase()} ${p}: schedules ${opId}, which no transition takes from ${initial} (remove the scenario, or keep a transition)`,
          );
      }
  return problems;
}

/**
 * What the model refuses at load and a designer meets when adding or removing a transition: an
 * operation both moved and refused from one status (a transition added, its rejection left), and
 * a rejection code whose operations move from no status (a transition removed: the code's message
 * says the status it asks for, read from those moves).
 */
function movesAndRejections(transitions: Json[], rejections: Json[]): string[] {
  const problems: string[] = [];
  const movesFrom = new Map<string, Set<string>>();
  for (const t of transitions) {
    const opId = (t.trigger as Json).operationId as string;
    const from = movesFrom.get(opId) ?? new Set<string>();
    for (const s of (t.from as string[] | null) ?? []) from.add(s);
    movesFrom.set(opId, from);
  }
  const asked = new Map<string, string[]>();
  for (const r of rejections) {
    const opId = (r.trigger as Json).operationId as string;
    const both = ((r.from as string[]) ?? []).filter((s) => movesFrom.get(opId)?.has(s));
    if (both.length)
      problems.push(
        `rejection of ${opId}: from ${both.join(', ')}, which a transition of ${opId} also moves from (remove it from the rejection)`,
      );
    const code = String(r.code);
    asked.set(code, [...(asked.get(code) ?? []), ...(movesFrom.get(opId) ?? [])]);
  }
  for (const [code, states] of asked)
    if (states.length === 0)
      problems.push(
        `rejection code ${code}: no transition of the operations it rejects moves from any status, so its message names none (remove the rejection, or keep a transition)`,
      );
  return problems;
}

/** Every operation can be sent an undeclared query parameter, answered 400 VALIDATION_ERROR (ADR-022): each must declare it. */
export function checkValidationErrorDeclared(variant: number, doc: Json): string[] {
  const problems: string[] = [];
  for (const [opId, op] of Object.entries(operations(doc))) {
    if (!(op.errors['400'] ?? []).includes('VALIDATION_ERROR'))
      problems.push(`Variant ${variant} ${opId}: declares no 400 VALIDATION_ERROR (ADR-022: an undeclared query parameter gets one)`);
  }
  return problems;
}

export function checkErrorExamples(variant: number, doc: Json): string[] {
  const problems: string[] = [];
  const catalog = errorCatalog(doc);
  const ops = operations(doc);
  for (const [opId, op] of Object.entries(ops)) {
    const item = resolveRef(doc, (doc.paths as Json)[op.path]);
    const operation = item[op.method.toLowerCase()] as Json;
    for (const [status, respRef] of Object.entries(operation.responses as Json)) {
      if (Number(status) < 400) continue;
      const declared = op.errors[status] ?? [];
      if (declared.length === 0) problems.push(`Variant ${variant} ${opId} ${status}: no error code declared`);
      for (const code of declared) {
        const entry = catalog[code];
        if (!entry) problems.push(`Variant ${variant} ${opId} ${status}: code ${code} is not in the ErrorCode catalogue`);
        else if (String(entry.status) !== status)
          problems.push(`Variant ${variant} ${opId} ${status}: code ${code} has status ${entry.status} in the catalogue`);
      }
      const resp = resolveRef(doc, respRef);
      const examples = (((resp.content as Json)?.['application/json'] as Json)?.examples ?? {}) as Json;
      if (Object.keys(examples).length === 0) problems.push(`Variant ${variant} ${opId} ${status}: no example body`);
      for (const [name, exRef] of Object.entries(examples)) {
        const ex = resolveRef(doc, exRef);
        const code = ((ex.value as Json)?.error as Json)?.code as string | undefined;
        if (!code || !declared.includes(code))
          problems.push(`Variant ${variant} ${opId} ${status}: example ${name} uses code ${String(code)}, not declared for this response`);
      }
      for (const code of declared) {
        const shown = Object.values(examples).some((exRef) => ((resolveRef(doc, exRef).value as Json)?.error as Json)?.code === code);
        if (!shown) problems.push(`Variant ${variant} ${opId} ${status}: declared code ${code} has no example body`);
      }
    }
  }
  return problems;
}

export async function specFiles(dir = SPEC_DIR): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await specFiles(full)));
    else if (e.name.endsWith('.yaml')) out.push(full);
  }
  return out.sort();
}

export function walk(node: unknown, visit: (key: string, value: unknown) => void): void {
  if (Array.isArray(node)) node.forEach((n) => walk(n, visit));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node as Json)) {
      visit(k, v);
      walk(v, visit);
    }
  }
}

export async function checkDecisionsAndExtensions(): Promise<string[]> {
  const problems: string[] = [];
  const decisions = await readFile(path.join(SPEC_DIR, 'DECISIONS.md'), 'utf8');
  const adrs = new Set([...decisions.matchAll(/^## (ADR-\d{3})\b/gm)].map((m) => m[1]!));
  const extensionsDoc = await readFile(path.join(SPEC_DIR, 'EXTENSIONS.md'), 'utf8');
  const listed = new Set([...extensionsDoc.matchAll(/^\| `(x-[a-zA-Z-]+)`/gm)].map((m) => m[1]!));
  const used = new Set<string>();
  const marked = new Set<string>();
  for (const file of await specFiles()) {
    const rel = path.relative(SPEC_DIR, file);
    const parsed = YAML.parse(await readFile(file, 'utf8')) as unknown;
    walk(parsed, (key, value) => {
      if (key.startsWith('x-')) used.add(key);
      if (key === 'x-decision' || (key === 'decision' && typeof value === 'string')) {
        const adr = String(value);
        if (!adrs.has(adr)) problems.push(`${rel}: ${key} ${adr} is not an ADR of spec/DECISIONS.md`);
        marked.add(adr);
      }
    });
    const text = await readFile(file, 'utf8');
    for (const m of text.matchAll(/\bADR-\d{3}\b/g)) {
      if (!adrs.has(m[0])) problems.push(`${rel}: mentions ${m[0]}, which spec/DECISIONS.md does not define`);
      marked.add(m[0]);
    }
  }
  for (const adr of adrs) if (!marked.has(adr)) problems.push(`${adr} is marked nowhere in the spec (x-decision)`);
  for (const ext of used) if (!listed.has(ext)) problems.push(`extension ${ext} is used in spec/ but not listed in spec/EXTENSIONS.md`);
  for (const ext of listed) if (!used.has(ext)) problems.push(`extension ${ext} is listed in spec/EXTENSIONS.md but used nowhere`);
  return problems;
}
