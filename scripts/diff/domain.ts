/**
 * The contract's own diff rules, which a generic OpenAPI/AsyncAPI diff cannot know: request,
 * response and event schemas rated by side (scripts/diff/schema.ts), the error codes each
 * operation may answer, parameters, security, the webhook events, the stated facts (rate limit,
 * token lifetime, body limit, webhook delivery, payment window), `x-state-machine`, and the
 * decisions (`x-decision`, spec/DECISIONS.md). Runs on the resolved documents (documents.ts).
 */
import path from 'node:path';
import { operations } from '../lib/contract-facts.ts';
import type { ContractDocument } from './documents.ts';
import { isJson, stableJson, textOf, type Json } from '../../lib/json.ts';
import type { SourceLocator } from './locate.ts';
import { CLIENTS, IMPLEMENTERS, MERCHANTS, type Audience, type Change, type Impact, type Side } from './model.ts';
import { compareSchemas, type SchemaSide } from './schema.ts';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const ALL: Audience[] = [MERCHANTS, IMPLEMENTERS, CLIENTS];

const obj = (v: unknown): Json => (isJson(v) ? v : {});
export { stableJson as stable };

/** One side of the comparison: a document, the tree it comes from and its locator. */
export interface Sided {
  doc: ContractDocument;
  dir: string;
  locator: SourceLocator;
}

/** A domain finding before it is placed: `keys` is its place in the resolved document. */
interface Finding {
  rule: string;
  impact: Impact;
  side: Side;
  subject: string;
  message: string;
  breaks: Audience[];
  keys: string[];
  inBase?: boolean;
  alsoAt?: string[][];
  removedNames?: string[];
}

export interface DomainChange extends Change {
  /** The source places of the change in revision and base (to merge with Redocly's verdicts). */
  places: string[];
}

export function placeOf(s: Sided, keys: string[], base: boolean): string {
  const p = s.locator.locate(s.doc.root, keys);
  return `${path.relative(s.dir, p.file).split(path.sep).join('/')}:${p.line}${base ? ' (base)' : ''}`;
}

class Collector {
  readonly out: DomainChange[] = [];
  constructor(
    readonly base: Sided,
    readonly rev: Sided,
  ) {}

  add(f: Finding): void {
    const location = f.inBase ? placeOf(this.base, f.keys, true) : placeOf(this.rev, f.keys, false);
    const places = [f.keys, ...(f.alsoAt ?? [])].flatMap((k) => [placeOf(this.rev, k, false), placeOf(this.base, k, true)]);
    this.out.push({
      documents: [this.rev.doc.key],
      rule: `domain/${f.rule}`,
      impact: f.impact,
      side: f.side,
      subject: f.subject,
      message: f.message,
      location,
      breaks: f.breaks,
      places,
      ...(f.removedNames ? { removedNames: f.removedNames } : {}),
    });
  }

  schema(side: SchemaSide, subject: string, b: unknown, r: unknown, keys: string[], label = ''): void {
    for (const f of compareSchemas(side, b, r, label)) {
      this.add({ ...f, side, subject, keys: [...keys, ...f.keys], alsoAt: f.alsoAt?.map((k) => [...keys, ...k]) });
    }
  }
}

function jsonSchemaOf(content: unknown): unknown {
  return obj(obj(content)['application/json']).schema;
}

function parametersOf(op: Json): Map<string, Json & { index: number }> {
  const out = new Map<string, Json & { index: number }>();
  ((op.parameters as Json[] | undefined) ?? []).forEach((p, index) => out.set(`${String(p.in)}:${String(p.name)}`, { ...p, index }));
  return out;
}

function compareParameters(c: Collector, subject: string, b: Json, r: Json, keys: string[], side: SchemaSide): void {
  const bp = parametersOf(b);
  const rp = parametersOf(r);
  for (const [id, p] of bp) {
    if (rp.has(id)) continue;
    c.add({
      rule: `${side === 'event' ? 'event-header' : 'parameter'}-removed`,
      impact: 'major',
      side,
      subject,
      message: `${id.replace(':', ' parameter ')} is removed`,
      breaks: side === 'event' ? [MERCHANTS, CLIENTS] : ALL,
      keys: [...keys, 'parameters', String(p.index)],
      inBase: true,
      removedNames: [String(p.name)],
    });
  }
  for (const [id, p] of rp) {
    const was = bp.get(id);
    const at = [...keys, 'parameters', String(p.index)];
    if (!was) {
      const breaking = side === 'request' && p.required === true;
      c.add({
        rule: `${side === 'event' ? 'event-header' : 'parameter'}-added`,
        impact: breaking ? 'major' : 'minor',
        side,
        subject,
        message: `${id.replace(':', ' parameter ')} is new${p.required ? ' and required' : ', optional'}`,
        breaks: breaking ? [MERCHANTS, CLIENTS] : [IMPLEMENTERS, CLIENTS],
        keys: at,
      });
      continue;
    }
    if (Boolean(was.required) !== Boolean(p.required)) {
      const breaking = side === 'request' ? p.required === true : was.required === true;
      c.add({
        rule: 'parameter-required-changed',
        impact: breaking ? 'major' : 'minor',
        side,
        subject,
        message: `${id.replace(':', ' parameter ')} is now ${p.required ? 'required' : 'optional'}`,
        breaks: breaking ? [MERCHANTS, CLIENTS] : [IMPLEMENTERS],
        keys: [...at, 'required'],
      });
    }
    c.schema(side, subject, was.schema, p.schema, [...at, 'schema'], String(p.name));
  }
}

function compareHeaders(c: Collector, subject: string, b: Json, r: Json, keys: string[]): void {
  for (const name of Object.keys(b)) {
    if (!(name in r))
      c.add({
        rule: 'response-header-removed',
        impact: 'major',
        side: 'response',
        subject,
        message: `response header \`${name}\` is removed`,
        breaks: [MERCHANTS, CLIENTS],
        keys: [...keys, name],
        inBase: true,
        removedNames: [name],
      });
  }
  for (const name of Object.keys(r)) {
    if (!(name in b))
      c.add({
        rule: 'response-header-added',
        impact: 'minor',
        side: 'response',
        subject,
        message: `response header \`${name}\` is new`,
        breaks: [IMPLEMENTERS],
        keys: [...keys, name],
      });
    else c.schema('response', subject, obj(b[name]).schema, obj(r[name]).schema, [...keys, name, 'schema'], name);
  }
}

/** Each operation's error codes (contract-facts), or none when the document is beyond what it reads (the generic diff still runs). */
function operationsOrNone(doc: Json): ReturnType<typeof operations> {
  try {
    return operations(doc);
  } catch {
    return {};
  }
}

function compareOperations(c: Collector): void {
  const bdoc = c.base.doc.resolved;
  const rdoc = c.rev.doc.resolved;
  const bfacts = operationsOrNone(bdoc);
  const rfacts = operationsOrNone(rdoc);
  for (const [p, item] of Object.entries(obj(rdoc.paths))) {
    for (const method of METHODS) {
      const r = obj(item)[method];
      const b = obj(obj(bdoc.paths)[p])[method];
      if (!isJson(r) || !isJson(b)) continue;
      const opId = String(r.operationId);
      const subject = `${method.toUpperCase()} ${p} (${opId})`;
      const keys = ['paths', p, method];
      if (stableJson(b.security) !== stableJson(r.security)) {
        c.add({
          rule: 'security-changed',
          impact: 'major',
          side: 'request',
          subject,
          message: `security ${stableJson(b.security)} → ${stableJson(r.security)}`,
          breaks: ALL,
          keys: [...keys, 'security'],
        });
      }
      compareParameters(c, subject, b, r, keys, 'request');
      const bb = obj(b.requestBody);
      const rb = obj(r.requestBody);
      if (Boolean(bb.required) !== Boolean(rb.required) && rb.required === true) {
        c.add({
          rule: 'request-body-became-required',
          impact: 'major',
          side: 'request',
          subject,
          message: 'the request body is now required',
          breaks: [MERCHANTS, CLIENTS],
          keys: [...keys, 'requestBody', 'required'],
        });
      }
      c.schema('request', subject, jsonSchemaOf(bb.content), jsonSchemaOf(rb.content), [
        ...keys,
        'requestBody',
        'content',
        'application/json',
        'schema',
      ]);
      const bresp = obj(b.responses);
      const rresp = obj(r.responses);
      const berr = bfacts[String(b.operationId)]?.errors ?? {};
      const rerr = rfacts[opId]?.errors ?? {};
      for (const status of new Set([...Object.keys(berr), ...Object.keys(rerr)])) {
        const was = berr[status] ?? [];
        const is = rerr[status] ?? [];
        const added = is.filter((x) => !was.includes(x));
        const removed = was.filter((x) => !is.includes(x));
        const where = [...keys, 'responses', status];
        if (added.length > 0) {
          c.add({
            rule: 'error-answer-added',
            impact: 'major',
            side: 'response',
            subject,
            message: `may now answer ${status} ${added.map((x) => `\`${x}\``).join(', ')}${was.length === 0 ? ' (a new status)' : ''}`,
            breaks: [MERCHANTS, CLIENTS],
            keys: where,
          });
        }
        if (removed.length > 0) {
          c.add({
            rule: 'error-answer-removed',
            impact: 'major',
            side: 'response',
            subject,
            message: `no longer answers ${status} ${removed.map((x) => `\`${x}\``).join(', ')}${is.length === 0 ? ' (status removed)' : ''}`,
            breaks: [IMPLEMENTERS, CLIENTS],
            keys: where,
            inBase: is.length === 0,
            removedNames: removed,
          });
        }
      }
      for (const status of Object.keys(rresp)) {
        const was = obj(bresp[status]);
        const is = obj(rresp[status]);
        if (!(status in bresp) || Number(status) >= 400) continue;
        const where = [...keys, 'responses', status];
        c.schema('response', `${subject} ${status}`, jsonSchemaOf(was.content), jsonSchemaOf(is.content), [
          ...where,
          'content',
          'application/json',
          'schema',
        ]);
        compareHeaders(c, `${subject} ${status}`, obj(was.headers), obj(is.headers), [...where, 'headers']);
      }
    }
  }
}

/** The events of a document: name → { payload, headers or header parameters, keys }. */
function eventsOf(
  doc: ContractDocument,
): Map<string, { payload: unknown; headers: unknown; parameters?: Json; keys: string[]; payloadKeys: string[]; headerKeys: string[] }> {
  const out = new Map<
    string,
    { payload: unknown; headers: unknown; parameters?: Json; keys: string[]; payloadKeys: string[]; headerKeys: string[] }
  >();
  if (doc.kind === 'openapi') {
    for (const [name, item] of Object.entries(obj(doc.resolved.webhooks))) {
      const post = obj(obj(item).post);
      const keys = ['webhooks', name, 'post'];
      out.set(name, {
        payload: jsonSchemaOf(obj(post.requestBody).content),
        headers: undefined,
        parameters: post,
        keys,
        payloadKeys: [...keys, 'requestBody', 'content', 'application/json', 'schema'],
        headerKeys: keys,
      });
    }
  } else {
    for (const [id, m] of Object.entries(obj(obj(doc.resolved.components).messages))) {
      const msg = obj(m);
      const keys = ['components', 'messages', id];
      out.set(textOf(msg.name ?? id), {
        payload: obj(msg.payload).schema,
        headers: obj(msg.headers).schema,
        keys,
        payloadKeys: [...keys, 'payload', 'schema'],
        headerKeys: [...keys, 'headers', 'schema'],
      });
    }
  }
  return out;
}

function compareEvents(c: Collector): void {
  const be = eventsOf(c.base.doc);
  const re = eventsOf(c.rev.doc);
  for (const [name, e] of be) {
    if (!re.has(name))
      c.add({
        rule: 'event-removed',
        impact: 'major',
        side: 'event',
        subject: `event ${name}`,
        message: `event \`${name}\` is no longer sent`,
        breaks: [MERCHANTS, CLIENTS, IMPLEMENTERS],
        keys: e.keys,
        inBase: true,
        removedNames: [name],
      });
  }
  for (const [name, e] of re) {
    const was = be.get(name);
    const subject = `event ${name}`;
    if (!was) {
      c.add({
        rule: 'event-added',
        impact: 'major',
        side: 'event',
        subject,
        message: `new event \`${name}\`: merchants' handlers do not know it`,
        breaks: [MERCHANTS, CLIENTS, IMPLEMENTERS],
        keys: e.keys,
      });
      continue;
    }
    c.schema('event', subject, was.payload, e.payload, e.payloadKeys);
    if (e.parameters && was.parameters) compareParameters(c, subject, was.parameters, e.parameters, e.headerKeys, 'event');
    else c.schema('event', `${subject} headers`, was.headers, e.headers, e.headerKeys);
  }
}

function compareSecuritySchemes(c: Collector): void {
  const strip = (s: unknown) => stableJson(Object.fromEntries(Object.entries(obj(s)).filter(([k]) => k !== 'description')));
  const b = obj(obj(c.base.doc.resolved.components).securitySchemes);
  const r = obj(obj(c.rev.doc.resolved.components).securitySchemes);
  for (const name of new Set([...Object.keys(b), ...Object.keys(r)])) {
    const keys = ['components', 'securitySchemes', name];
    if (!(name in r))
      c.add({
        rule: 'security-scheme-removed',
        impact: 'major',
        side: 'request',
        subject: `security scheme ${name}`,
        message: `security scheme \`${name}\` is removed`,
        breaks: ALL,
        keys,
        inBase: true,
      });
    else if (!(name in b))
      c.add({
        rule: 'security-scheme-added',
        impact: 'minor',
        side: 'request',
        subject: `security scheme ${name}`,
        message: `security scheme \`${name}\` is new`,
        breaks: [IMPLEMENTERS],
        keys,
      });
    else if (strip(b[name]) !== strip(r[name]))
      c.add({
        rule: 'security-scheme-changed',
        impact: 'major',
        side: 'request',
        subject: `security scheme ${name}`,
        message: `security scheme \`${name}\`: ${strip(b[name])} → ${strip(r[name])}`,
        breaks: ALL,
        keys,
      });
  }
}

export { compareOperations, compareEvents, compareSecuritySchemes, Collector };
