/**
 * Domain rules on the contract's stated facts and behaviour: the rate limit (`x-rate-limit`), the
 * token lifetime (`x-token-lifetime-seconds`), the body limit (`x-max-body-bytes`), the webhook
 * delivery rules (`x-webhook-delivery`), the transaction life cycle (`x-state-machine`, with its
 * payment window) and the decisions (`x-decision`, spec/DECISIONS.md). Facts are found wherever
 * they apply in the resolved documents, so a fact stated once and `$ref`ed is compared where used.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isJson, type Json } from '../../lib/json.ts';
import { stable, type Collector } from './domain.ts';
import { CLIENTS, IMPLEMENTERS, MERCHANTS, type Audience, type Change, type Impact } from './model.ts';

/** Every place (keys) where one of `names` is a key in a resolved document, with its value. */
function findKeys(
  node: unknown,
  names: readonly string[],
  keys: string[] = [],
  out = new Map<string, { keys: string[]; value: unknown }>(),
): Map<string, { keys: string[]; value: unknown }> {
  if (Array.isArray(node)) node.forEach((n, i) => findKeys(n, names, [...keys, String(i)], out));
  else if (isJson(node)) {
    for (const [k, v] of Object.entries(node)) {
      if (names.includes(k)) out.set(JSON.stringify([...keys, k]), { keys: [...keys, k], value: v });
      else findKeys(v, names, [...keys, k], out);
    }
  }
  return out;
}

/** How a numeric fact moves: `lower` narrows when it goes down (a limit), `higher` when it goes up (a window to wait). */
const FACTS: Record<
  string,
  { rule: string; label: string; side: 'request' | 'response' | 'event'; narrows: Record<string, 'lower' | 'higher'> | 'lower' | 'any' }
> = {
  'x-rate-limit': {
    rule: 'rate-limit-changed',
    label: 'rate limit',
    side: 'request',
    narrows: { limit: 'lower', windowSeconds: 'higher', retryAfterSeconds: 'higher' },
  },
  'x-token-lifetime-seconds': { rule: 'token-lifetime-changed', label: 'token lifetime', side: 'response', narrows: 'lower' },
  'x-max-body-bytes': { rule: 'body-limit-changed', label: 'request body limit', side: 'request', narrows: 'lower' },
  'x-webhook-delivery': { rule: 'webhook-delivery-changed', label: 'webhook signing and retries', side: 'event', narrows: 'any' },
};

function narrowed(narrows: 'lower' | 'higher' | 'any', b: unknown, r: unknown): boolean {
  if (narrows === 'any' || typeof b !== 'number' || typeof r !== 'number') return true;
  return narrows === 'lower' ? r < b : r > b;
}

/** True when `doc` has operation `method` of path `path`. */
function operationIn(doc: Json, path: string | undefined, method: string | undefined): boolean {
  const paths = isJson(doc.paths) ? doc.paths : {};
  const item = path === undefined ? undefined : paths[path];
  return isJson(item) && method !== undefined && isJson(item[method]);
}

export function compareFacts(c: Collector): void {
  const names = Object.keys(FACTS);
  const b = findKeys(c.base.doc.resolved, names);
  const r = findKeys(c.rev.doc.resolved, names);
  for (const id of new Set([...b.keys(), ...r.keys()])) {
    const was = b.get(id);
    const is = r.get(id);
    if (stable(was?.value) === stable(is?.value)) continue;
    const keys = (is ?? was)!.keys;
    // A fact of an operation the base does not have is part of that new operation (reported as added), not a change.
    if (!was && keys[0] === 'paths' && !operationIn(c.base.doc.resolved, keys[1], keys[2])) continue;
    const fact = FACTS[keys[keys.length - 1]!]!;
    let narrow: boolean;
    if (!was) narrow = true;
    else if (!is) narrow = false;
    else if (typeof fact.narrows === 'object') {
      const bv = isJson(was.value) ? was.value : {};
      const rv = isJson(is.value) ? is.value : {};
      narrow = [...new Set([...Object.keys(bv), ...Object.keys(rv)])].some(
        (k) => stable(bv[k]) !== stable(rv[k]) && narrowed((fact.narrows as Record<string, 'lower' | 'higher'>)[k] ?? 'any', bv[k], rv[k]),
      );
    } else narrow = narrowed(fact.narrows, was.value, is.value);
    const subject = keys[0] === 'paths' ? `${String(keys[2]).toUpperCase()} ${keys[1]}` : fact.label;
    c.add({
      rule: fact.rule,
      impact: narrow ? 'major' : 'minor',
      side: fact.side,
      subject,
      message: `${fact.label}: ${stable(was?.value)} → ${stable(is?.value)}${narrow ? '' : ' (widened)'}`,
      breaks: narrow ? [MERCHANTS, IMPLEMENTERS] : [IMPLEMENTERS],
      keys,
      inBase: !is,
    });
  }
}

const SM_KEYS = ['components', 'schemas', 'TransactionStatus', 'x-state-machine'];

function machine(doc: Json): Json | undefined {
  let node: unknown = doc;
  for (const k of SM_KEYS) node = isJson(node) ? node[k] : undefined;
  return isJson(node) ? node : undefined;
}

export function compareStateMachine(c: Collector): void {
  const b = machine(c.base.doc.resolved);
  const r = machine(c.rev.doc.resolved);
  if (!b || !r) return;
  const subject = 'x-state-machine';
  const add = (
    rule: string,
    impact: Impact,
    message: string,
    keys: string[],
    breaks: Audience[],
    inBase = false,
    removedNames?: string[],
  ) =>
    c.add({
      rule,
      impact,
      side: 'behaviour',
      subject,
      message,
      keys: [...SM_KEYS, ...keys],
      breaks,
      inBase,
      ...(removedNames ? { removedNames } : {}),
    });
  if (stable(b.initial) !== stable(r.initial))
    add(
      'state-machine-initial-changed',
      'major',
      `initial state ${stable(b.initial)} → ${stable(r.initial)}`,
      ['initial'],
      [MERCHANTS, IMPLEMENTERS],
    );
  const bw = isJson(b.paymentWindow) ? b.paymentWindow : {};
  const rw = isJson(r.paymentWindow) ? r.paymentWindow : {};
  if (stable({ ...bw, decision: null }) !== stable({ ...rw, decision: null })) {
    const shorter =
      typeof bw.defaultSeconds === 'number' && typeof rw.defaultSeconds === 'number'
        ? rw.defaultSeconds < bw.defaultSeconds || bw.configurable !== rw.configurable
        : true;
    add(
      'payment-window-changed',
      shorter ? 'major' : 'minor',
      `payment window ${stable(bw)} → ${stable(rw)}`,
      ['paymentWindow'],
      shorter ? [MERCHANTS, IMPLEMENTERS] : [IMPLEMENTERS],
    );
  }
  const bs = isJson(b.states) ? b.states : {};
  const rs = isJson(r.states) ? r.states : {};
  for (const s of Object.keys(bs))
    if (!(s in rs))
      add('state-removed', 'major', `state \`${s}\` is removed`, ['states', s], [MERCHANTS, IMPLEMENTERS, CLIENTS], true, [s]);
  for (const s of Object.keys(rs)) {
    if (!(s in bs)) add('state-added', 'major', `new state \`${s}\``, ['states', s], [MERCHANTS, IMPLEMENTERS, CLIENTS]);
    else if (stable(obj(bs[s]).terminal) !== stable(obj(rs[s]).terminal))
      add(
        'state-changed',
        'major',
        `state \`${s}\` terminal ${stable(obj(bs[s]).terminal)} → ${stable(obj(rs[s]).terminal)}`,
        ['states', s, 'terminal'],
        [MERCHANTS, IMPLEMENTERS],
      );
    else if (stable(obj(bs[s]).description) !== stable(obj(rs[s]).description))
      add('state-description-changed', 'patch', `state \`${s}\`: description changed`, ['states', s, 'description'], []);
  }
  const bt = new Map(((b.transitions as Json[] | undefined) ?? []).map((t, i) => [String(t.id), { t, i }]));
  const rt = new Map(((r.transitions as Json[] | undefined) ?? []).map((t, i) => [String(t.id), { t, i }]));
  for (const [id, { i }] of bt)
    if (!rt.has(id))
      add('transition-removed', 'major', `transition \`${id}\` is removed`, ['transitions', String(i)], [MERCHANTS, IMPLEMENTERS], true);
  for (const [id, { t, i }] of rt) {
    const was = bt.get(id)?.t;
    const at = ['transitions', String(i)];
    if (!was) {
      add('transition-added', 'major', `new transition \`${id}\`: ${stable(t.from)} → ${String(t.to)}`, at, [MERCHANTS, IMPLEMENTERS]);
      continue;
    }
    for (const field of ['from', 'to', 'trigger']) {
      if (stable(was[field]) !== stable(t[field]))
        add(
          'transition-changed',
          'major',
          `transition \`${id}\`: ${field} ${stable(was[field])} → ${stable(t[field])}`,
          [...at, field],
          [MERCHANTS, IMPLEMENTERS],
        );
    }
    if (stable(was.emits) !== stable(t.emits))
      add(
        'transition-emits-changed',
        'major',
        `transition \`${id}\` emits ${stable(was.emits)} → ${stable(t.emits)}`,
        [...at, 'emits'],
        [MERCHANTS, IMPLEMENTERS, CLIENTS],
      );
    if (stable(was.guard) !== stable(t.guard))
      add(
        'guard-changed',
        'minor',
        `guard of \`${id}\`: ${stable(was.guard)} → ${stable(t.guard)} (behaviour as described; review the server)`,
        [...at, 'guard'],
        [IMPLEMENTERS],
      );
    if (stable(was.effects) !== stable(t.effects))
      add('transition-effects-changed', 'minor', `effects of \`${id}\` changed`, [...at, 'effects'], [IMPLEMENTERS]);
  }
  const key = (x: Json) => stable({ from: x.from, trigger: x.trigger, status: x.status, code: x.code });
  const br = ((b.rejections as Json[] | undefined) ?? []).map(key);
  const rr = ((r.rejections as Json[] | undefined) ?? []).map(key);
  br.forEach((x, i) => {
    if (!rr.includes(x))
      add('rejection-removed', 'major', `rejection removed: ${x}`, ['rejections', String(i)], [IMPLEMENTERS, MERCHANTS], true);
  });
  rr.forEach((x, i) => {
    if (!br.includes(x)) add('rejection-added', 'major', `new rejection: ${x}`, ['rejections', String(i)], [MERCHANTS, IMPLEMENTERS]);
  });
}

function has(doc: Json, keys: string[]): boolean {
  let node: unknown = doc;
  for (const k of keys) {
    if (!node || typeof node !== 'object' || !(k in (node as Json))) return false;
    node = (node as Json)[k];
  }
  return true;
}

function obj(v: unknown): Json {
  return isJson(v) ? v : {};
}

export function compareDecisionMarks(c: Collector): void {
  const b = findKeys(c.base.doc.resolved, ['x-decision', 'decision']);
  const r = findKeys(c.rev.doc.resolved, ['x-decision', 'decision']);
  for (const id of new Set([...b.keys(), ...r.keys()])) {
    const was = b.get(id);
    const is = r.get(id);
    if (stable(was?.value) === stable(is?.value)) continue;
    const keys = (is ?? was)!.keys;
    // A mark that comes or goes with its object is part of that object's change, not a decision change.
    if (!has(c.base.doc.resolved, keys.slice(0, -1)) || !has(c.rev.doc.resolved, keys.slice(0, -1))) continue;
    c.add({
      rule: 'decision-changed',
      impact: 'patch',
      side: 'decision',
      subject: keys.slice(0, -1).join(' › ') || 'document',
      message: `x-decision ${stable(was?.value)} → ${stable(is?.value)}`,
      breaks: [],
      keys,
      inBase: !is,
    });
  }
}

/** The ADRs of spec/DECISIONS.md: id → { title, body, line }. */
function adrs(dir: string): Map<string, { title: string; body: string; line: number }> {
  const out = new Map<string, { title: string; body: string; line: number }>();
  let text: string;
  try {
    text = readFileSync(path.join(dir, 'spec', 'DECISIONS.md'), 'utf8');
  } catch {
    return out;
  }
  const lines = text.split('\n');
  let current: { id: string; title: string; body: string[]; line: number } | undefined;
  const flush = () => current && out.set(current.id, { title: current.title, body: current.body.join('\n').trim(), line: current.line });
  lines.forEach((l, i) => {
    const m = /^## (ADR-\d{3})\b[\s:—-]*(.*)$/.exec(l);
    if (m) {
      flush();
      current = { id: m[1]!, title: m[2]!.trim(), body: [], line: i + 1 };
    } else if (/^## /.test(l)) {
      flush();
      current = undefined;
    } else current?.body.push(l);
  });
  flush();
  return out;
}

/** ADRs added, removed or rewritten in spec/DECISIONS.md (listed as decisions, patch). */
export function compareAdrs(baseDir: string, revDir: string): Change[] {
  const b = adrs(baseDir);
  const r = adrs(revDir);
  const out: Change[] = [];
  const change = (rule: string, id: string, message: string, line: number, base: boolean): Change => ({
    documents: ['decisions'],
    rule: `domain/${rule}`,
    impact: 'patch',
    side: 'decision',
    subject: id,
    message,
    location: `spec/DECISIONS.md:${line}${base ? ' (base)' : ''}`,
    breaks: [],
  });
  for (const [id, a] of r) {
    const was = b.get(id);
    if (!was) out.push(change('adr-added', id, `new decision ${id}: ${a.title}`, a.line, false));
    else if (was.title !== a.title || was.body !== a.body)
      out.push(change('adr-changed', id, `decision ${id} (${a.title}) is reworded`, a.line, false));
  }
  for (const [id, a] of b) if (!r.has(id)) out.push(change('adr-removed', id, `decision ${id} (${a.title}) is removed`, a.line, true));
  return out;
}
