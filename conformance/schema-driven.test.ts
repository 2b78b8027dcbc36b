/**
 * Bodies follow the spec: valid bodies and boundary probes derived from the request schemas
 * (`schema-arb.ts`, `gen.ts`), so a property added to the spec is sent without touching the suite.
 */
import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBundledDocument } from '../generated/index.ts';
import { objectAt } from '../lib/json.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { bodyGen } from './gen.ts';
import { runSuite } from './run.ts';
import { arbitraryOf, probesOf } from './schema-arb.ts';
import { Contract } from './spec.ts';

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
        for (const b of bodies) expect(c.classifyBody(op, b)).toEqual({ validation: [], mismatch: false, business: [] });
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
          const cls = c.classifyBody(op, g.probes.find((x) => x.label === p.label)!.apply(base));
          expect({ label: p.label, invalid: cls.validation.length > 0 }).toEqual({ label: p.label, invalid: !p.inside });
          // a line kept valid keeps the body consistent: only the keyword is judged
          if (p.inside && p.path[0] === 'items')
            expect({ label: p.label, ...cls }).toEqual({ label: p.label, validation: [], mismatch: false, business: [] });
        }
        // the x- amount rules: each end of x-amount-range kept and passed by a centime, and Σ off by one
        const rules = g.probes.filter((p) => !keywords.some((k) => k.label === p.label)).map((p) => p.label);
        expect(rules).toContain('total ≠ Σ items by a centime (x-amount-consistency)');
        for (const p of g.probes.filter((x) => rules.includes(x.label))) {
          const cls = c.classifyBody(op, p.apply(base));
          const refused = cls.validation.length > 0 || cls.mismatch || cls.business.length > 0;
          expect({ label: p.label, refused }).toEqual({ label: p.label, refused: p.heavy });
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
