/**
 * Bodies follow the spec: valid bodies and boundary probes derived from the request schemas
 * (`schema-arb.ts`, `gen.ts`), so a property added to the spec is sent without touching the suite.
 */
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstByPrecedence, loadBundledDocument } from '../generated/index.ts';
import { objectAt } from '../lib/json.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { classifyBody } from './commands/createSession.ts';
import { parameterProbes } from './commands/parameterProbe.ts';
import { bodyGen } from './gen.ts';
import { runSuite } from './run.ts';
import { arbitraryOf, flatten } from './schema-arb.ts';
import { parameterProbesOf, probesOf } from './schema-probes.ts';
import { Contract, makeAjv } from '../judge/contract.ts';
import { probeCommands, tourCommands } from './tour.ts';

type Json = Record<string, unknown>;
const OPS = ['createPartnerTransaction', 'createSession'] as const;

/** Variant 1's bundled document with an optional `items[].note` (string, at most 200 characters) on B1. */
function withNote(): Json {
  const doc = loadBundledDocument(1) as Json;
  objectAt(doc, 'components', 'schemas', 'PartnerTransactionItemInput', 'properties').note = { type: 'string', maxLength: 200 };
  return doc;
}

/** Every member name seen in B1 bodies (items' members as `items[].name`). */
function members(bodies: Json[]): Set<string> {
  const out = new Set<string>();
  for (const b of bodies) {
    for (const k of Object.keys(b)) out.add(k);
    for (const it of (b.items as Json[] | undefined) ?? []) for (const k of Object.keys(it)) out.add(`items[].${k}`);
  }
  return out;
}

describe('bodies derived from the request schemas', () => {
  for (const variant of [1, 2] as const) {
    for (const op of OPS) {
      it(`variant ${variant} ${op}: valid bodies are valid, and every optional member is sent in some`, () => {
        const c = Contract.for(variant);
        const bodies = fc.sample(bodyGen(c, op).valid, { numRuns: 200, seed: 42 });
        for (const b of bodies) expect(classifyBody(c, op, b)).toEqual({ validation: [], mismatch: false, business: [] });
        const schema = c.requestSchema(op);
        const item = c.schema(op === 'createSession' ? 'SessionItem' : 'PartnerTransactionItemInput');
        const declared = [...Object.keys(schema.properties as Json), ...Object.keys(item.properties as Json).map((k) => `items[].${k}`)];
        expect([...members(bodies)].sort()).toEqual(declared.sort());
      });
      it(`variant ${variant} ${op}: each probe changes one keyword, and the schema's verdict is the probe's`, () => {
        const c = Contract.for(variant);
        const g = bodyGen(c, op);
        const base = g.fixed(100_000);
        const keywords = probesOf(c.doc, c.requestSchema(op));
        for (const p of keywords) {
          const cls = classifyBody(c, op, g.probes.find((x) => x.label === p.label)!.apply(base));
          expect({ label: p.label, invalid: cls.validation.length > 0 }).toEqual({ label: p.label, invalid: !p.inside });
          // a line kept valid keeps the body consistent: only the keyword is judged
          if (p.inside && p.path[0] === 'items')
            expect({ label: p.label, ...cls }).toEqual({ label: p.label, validation: [], mismatch: false, business: [] });
        }
        // the x- amount rules: each end of x-amount-range kept and passed by a centime, and Σ off by one
        const rules = g.probes.filter((p) => !p.twoFaults && !keywords.some((k) => k.label === p.label)).map((p) => p.label);
        expect(rules).toContain('total ≠ Σ items by a centime (x-amount-consistency)');
        for (const p of g.probes.filter((x) => rules.includes(x.label))) {
          const cls = classifyBody(c, op, p.apply(base));
          const refused = cls.validation.length > 0 || cls.mismatch || cls.business.length > 0;
          expect({ label: p.label, refused }).toEqual({ label: p.label, refused: p.heavy });
        }
        // ADR-057: two failing members of different codes, one answer, x-error-precedence's first
        const two = g.probes.filter((p) => p.twoFaults);
        if (op === 'createSession') expect(two.length).toBeGreaterThanOrEqual(3);
        for (const p of two) {
          const [a, b] = p.twoFaults!.map((m) => c.errorCodeOf(op, m)) as [string, string];
          expect(a, p.label).not.toBe(b);
          expect({ label: p.label, ...classifyBody(c, op, p.apply(base)) }).toEqual({
            label: p.label,
            validation: [firstByPrecedence([a, b], (x) => x)],
            mismatch: false,
            business: [],
          });
        }
      });
    }
  }

  it("never sends a magic phone of B1's x-sandbox-scenarios in a generated body (it would change the outcome)", () => {
    // a copy of the spec whose phone schema allows only a magic phone and one ordinary phone
    const doc = loadBundledDocument(1) as Json;
    const op = objectAt(doc, 'paths', '/api/v1/public/partner/transactions', 'post');
    const magic = (objectAt(op, 'x-sandbox-scenarios') as { customerPhones: { customerPhone: string }[] }).customerPhones[0]!.customerPhone;
    objectAt(doc, 'components', 'schemas').CustomerPhone = { type: 'string', enum: [magic, '212612345678'] };
    const bodies = fc.sample(bodyGen(new Contract(1, doc), 'createPartnerTransaction').valid, { numRuns: 100, seed: 9 });
    expect(bodies.map((b) => b.customerPhone)).not.toContain(magic);
    expect(bodies.map((b) => b.customerPhone)).toContain('212612345678');
  });

  it('the deriver refuses a keyword it does not know', () => {
    const doc = { components: { schemas: { X: { type: 'string', contentEncoding: 'base64' } } } };
    expect(() => arbitraryOf(doc, { $ref: '#/components/schemas/X' })).toThrow(/contentEncoding/);
    expect(() => arbitraryOf(doc, { type: 'string', format: 'email' })).toThrow(/format "email"/);
  });

  it('an optional member added to a copy of the spec is sent (valid and at its boundaries); never without it', () => {
    const edited = new Contract(1, withNote());
    const bodies = fc.sample(bodyGen(edited, 'createPartnerTransaction').valid, { numRuns: 100, seed: 1 });
    const notes = bodies.flatMap((b) => (b.items as Json[]).map((it) => it.note)).filter((n) => n !== undefined);
    expect(notes.length).toBeGreaterThan(0);
    expect(notes.every((n) => typeof n === 'string' && [...n].length <= 200)).toBe(true);
    expect(bodyGen(edited, 'createPartnerTransaction').probes.map((p) => p.label)).toContain('items[0].note maxLength (201 chars)');
    const plain = fc.sample(bodyGen(Contract.for(1), 'createPartnerTransaction').valid, { numRuns: 300, seed: 1 });
    expect(members(plain).has('items[].note')).toBe(false);
  });
});

describe('nullable types, the uuid format and parameters', () => {
  it('a type list of one type and "null": null in some values, the type\'s own probes, a wrong type and null inside', () => {
    const doc = {};
    const schema = { type: ['string', 'null'], maxLength: 3 };
    const values = fc.sample(arbitraryOf(doc, schema), { numRuns: 200, seed: 5 });
    expect(values).toContain(null);
    expect(values.every((v) => v === null || (typeof v === 'string' && [...v].length <= 3))).toBe(true);
    expect(values.some((v) => typeof v === 'string')).toBe(true);
    const probes = probesOf(doc, { type: 'object', properties: { url: schema } }).map((p) => [p.label, p.value, p.inside]);
    expect(probes).toContainEqual(['url type (null)', null, true]);
    expect(probes).toContainEqual(['url type (not a string)', 1, false]);
    expect(probes).toContainEqual(['url maxLength (4 chars)', expect.any(String), false]);
    // any other type list still fails loudly
    expect(() => arbitraryOf(doc, { type: ['string', 'integer'] })).toThrow(/type \["string","integer"\]/);
    expect(() => probesOf(doc, { type: ['null'] })).toThrow(/type \["null"\]/);
  });

  it("sandboxSetWebhookEndpoint's nullable url: valid bodies with null and strings, each probe's verdict the schema's", () => {
    const c = Contract.for(1);
    const op = 'sandboxSetWebhookEndpoint';
    const bodies = fc.sample(bodyGen(c, op).valid, { numRuns: 100, seed: 3 });
    for (const b of bodies) expect(classifyBody(c, op, b).validation).toEqual([]);
    expect(bodies.map((b) => b.url)).toContain(null);
    expect(bodies.some((b) => typeof b.url === 'string')).toBe(true);
  });

  it('the uuid format: generated values and inside probes are UUIDs, outside probes are not', () => {
    const doc = {};
    const schema = { type: 'string', format: 'uuid' };
    const isUuid = makeAjv().compile(schema);
    for (const v of fc.sample(arbitraryOf(doc, schema), { numRuns: 100, seed: 8 })) expect(isUuid(v)).toBe(true);
    const probes = parameterProbesOf(doc, schema, 'transactionId', 'path').filter((p) => p.keyword === 'format');
    expect(probes.map((p) => p.inside)).toEqual([true, false, false]);
    for (const p of probes) expect({ label: p.label, valid: isUuid(p.value) }).toEqual({ label: p.label, valid: p.inside });
    expect(() => arbitraryOf(doc, { ...schema, maxLength: 36 })).toThrow(/uuid with a pattern or length/);
  });

  for (const variant of [1, 2] as const) {
    it(`variant ${variant}: every parameter probe's verdict is the parameter schema's (as the URL's string)`, () => {
      const c = Contract.for(variant);
      const ajv = makeAjv();
      let n = 0;
      for (const op of Object.keys(c.ops)) {
        for (const p of c.parameters(op).filter((x) => x.in === 'path' || x.in === 'query')) {
          const schema = flatten(c.doc, p.schema);
          const validate = ajv.compile(schema);
          for (const probe of parameterProbesOf(c.doc, p.schema, p.name, p.in as 'path')) {
            const s = probe.value as string;
            // an integer parameter is read from its string when it is written as a number
            const value = schema.type === 'integer' && /^-?\d+(\.\d+)?$/.test(s) ? Number(s) : s;
            expect({ op, label: probe.label, valid: validate(value) }).toEqual({ op, label: probe.label, valid: probe.inside });
            n++;
          }
        }
      }
      expect(n).toBeGreaterThan(20);
    });

    it(`variant ${variant}: the sandbox tour probes every sandbox request body and every parameter of the operations it drives`, () => {
      const c = Contract.for(variant);
      const names = [...probeCommands(c, 'sandbox'), ...tourCommands(c, 'sandbox')].map(String);
      const bodyOps = Object.entries(c.ops).filter(([op, o]) => o.sandbox && !o.internal && c.hasRequestBody(op));
      expect(bodyOps.map(([op]) => op)).toEqual(
        expect.arrayContaining(['sandboxSetWebhookEndpoint', 'sandboxRotateWebhookSecret', 'sandboxSendTestWebhook', 'sandboxReset']),
      );
      for (const [op] of bodyOps) {
        const g = bodyGen(c, op);
        // each probe's verdict is the schema's
        for (const p of probesOf(c.doc, c.requestSchema(op))) {
          const invalid = classifyBody(c, op, g.probes.find((x) => x.label === p.label)!.apply(g.fixed(0))).validation.length > 0;
          expect({ op, label: p.label, invalid }).toEqual({ op, label: p.label, invalid: !p.inside });
        }
        const outside = g.probes.filter((p) => classifyBody(c, op, p.apply(g.fixed(0))).validation.length > 0);
        expect(outside.length).toBeGreaterThan(0);
        for (const p of outside) expect(names).toContain(`invalidBody(${op}, ${p.label})`);
      }
      for (const p of parameterProbes(c, 'sandbox')) expect(names).toContain(p.toString());
      expect(names).toContain('parameterProbe(sandboxListSms, limit maximum at 101)');
      expect(names).toContain('parameterProbe(getPartnerTransaction, transactionId format (uuid one character short))');
      // the core tour: no sandbox operation's parameters
      expect(parameterProbes(c, 'core').some((p) => c.op(p.op).sandbox)).toBe(false);
    });
  }

  it("a new maximum on limit in a copy of the spec changes limit's probes", () => {
    const doc = loadBundledDocument(1) as Json;
    objectAt(doc, 'components', 'parameters', 'limit', 'schema').maximum = 20;
    const labels = parameterProbes(new Contract(1, doc), 'sandbox')
      .filter((p) => p.op === 'sandboxListSms' && p.name === 'limit')
      .map((p) => [p.value, p.inside]);
    expect(labels).toContainEqual(['20', true]);
    expect(labels).toContainEqual(['21', false]);
    expect(labels).not.toContainEqual(['101', false]);
  });
});

describe('a server that refuses a member the spec added is reported', () => {
  let server: TestServer;
  const keys = { main: `sk_test_note_${randomBytes(6).toString('hex')}`, other: `sk_test_noteo_${randomBytes(6).toString('hex')}` };
  beforeAll(async () => {
    // the reference server follows the unedited spec: it answers 400 to a body carrying items[].note
    server = await startTestServer({
      merchants: [
        { name: 'Note', storeName: 'Note store', apiKey: keys.main, variant: 1 },
        { name: 'Note other', storeName: 'Note other store', apiKey: keys.other, variant: 1 },
      ],
      mode: 'sandbox',
    });
  });
  afterAll(async () => server?.close());

  const run = (document?: Json) => {
    const sent: string[] = [];
    return runSuite({
      baseUrl: server.baseUrl,
      apiKey: keys.main,
      otherApiKey: keys.other,
      variant: 1,
      profile: 'core',
      runs: 5,
      seed: 3,
      maxCommands: 10,
      paymentWindowSeconds: 1800,
      document,
      onExchange: (ex) => void (ex.opId === 'createPartnerTransaction' && ex.body && sent.push(ex.body)),
    }).then((r) => ({ r, sent }));
  };

  it('with the edited copy: the suite sends items[].note and reports the 400', async () => {
    const { r, sent } = await run(withNote());
    expect(sent.some((b) => (JSON.parse(b) as Json & { items?: Json[] }).items?.some?.((it) => 'note' in it))).toBe(true);
    expect(r.findings.length).toBeGreaterThan(0);
    expect(r.findings[0]!.message).toMatch(/createPartnerTransaction|partner\/transactions/);
    expect(r.findings[0]!.message).toMatch(/400/);
  }, 60_000);

  it('with the unedited spec: no note is sent and the server passes', async () => {
    const { r, sent } = await run(undefined);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.some((b) => b.includes('"note"'))).toBe(false);
    expect(r.findings.map((f) => f.message)).toEqual([]);
  }, 60_000);
});
