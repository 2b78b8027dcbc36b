/**
 * The compiled checks against express-openapi-validator, the library they replaced, as an oracle:
 * the same corpus through both, the same accept/refuse decision and the same error
 * code for every case. The corpus: the requests the conformance suite's generators make (valid
 * bodies and every keyword-boundary probe of each body, path and query parameter, seeded), the
 * suite's malformed parameters and undeclared query parameter, of both variants; and the
 * responses the reference server gives to all of them.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Contract } from '../judge/contract.ts';
import { bodyGen } from '../conformance/gen.ts';
import type { Json } from '../conformance/schema-arb.ts';
import { parameterProbesOf, witnessOf } from '../conformance/schema-probes.ts';
import { loadBundledDocument, type Variant } from '../generated/index.ts';
import { startTestServer, type TestServer } from '../reference-server/testing.ts';
import { refusalOf } from './errors.ts';
import { routeTable } from './routes.ts';
import { requestSchemaOf, resolveRef } from './schema.ts';
import { startOracle, type Oracle, type OracleAnswer } from './test-support/eov-oracle.ts';
import { validateRequest, validateResponse } from './validate.ts';

interface Case {
  variant: Variant;
  opId: string;
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
  label: string;
}

/** The declared path and query parameters of an operation, with their schemas. */
function parametersOf(doc: Json, method: string, path: string): Array<{ name: string; in: 'path' | 'query'; schema: unknown }> {
  const item = (doc.paths as Json)[path] as Json;
  const op = item[method.toLowerCase()] as Json;
  return [...((item.parameters ?? []) as unknown[]), ...((op.parameters ?? []) as unknown[])]
    .map((p) => resolveRef(doc, p) as Json)
    .filter((p) => p.in === 'path' || p.in === 'query')
    .map((p) => ({ name: String(p.name), in: p.in as 'path' | 'query', schema: p.schema }));
}

/** Every request of the corpus for `variant`. */
function corpus(variant: Variant): Case[] {
  const contract = Contract.for(variant);
  const doc = contract.doc;
  const out: Case[] = [];
  for (const e of routeTable(variant).entries) {
    const params = parametersOf(doc, e.method, e.path);
    const witness = Object.fromEntries(params.filter((p) => p.in === 'path').map((p) => [p.name, String(witnessOf(doc, p.schema))]));
    const pathWith = (values: Record<string, string>) => e.path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(values[n]!));
    const base = { variant, opId: e.operationId, method: e.method, headers: {} as Record<string, string> };
    const g = e.requestBody ? bodyGen(contract, e.operationId) : null;
    const validBody = g?.fixed(100_000);
    const at = (label: string, over: Partial<Case> = {}): Case => ({
      ...base,
      path: pathWith(witness),
      query: {},
      body: validBody,
      label,
      ...over,
    });
    out.push(at('valid'));
    if (g) {
      for (const [i, body] of fc.sample(g.valid, { numRuns: 8, seed: 39 }).entries()) out.push(at(`valid body ${i}`, { body }));
      for (const p of g.probes) out.push(at(`body ${p.label}`, { body: p.apply(validBody!) }));
    }
    for (const p of params) {
      for (const probe of parameterProbesOf(doc, p.schema, p.name, p.in)) {
        const value = String(probe.value);
        if (p.in === 'path') out.push(at(`path ${probe.label}`, { path: pathWith({ ...witness, [p.name]: value }) }));
        else out.push(at(`query ${probe.label}`, { query: { [p.name]: value } }));
      }
      if (p.in === 'path') out.push(at(`path ${p.name} not-a-uuid`, { path: pathWith({ ...witness, [p.name]: 'not-a-uuid-x' }) }));
    }
    out.push(at('undeclared query', { query: { debug: '1' } }));
    for (const v of ['418', '503', 'timeout=31']) out.push(at(`Paylater-Simulate ${v}`, { headers: { 'Paylater-Simulate': v } }));
  }
  return out;
}

const target = (c: Case) => `${c.path}${Object.keys(c.query).length ? `?${new URLSearchParams(c.query)}` : ''}`;
const send = (url: string, c: Case, headers: Record<string, string> = {}) =>
  fetch(`${url}${target(c)}`, {
    method: c.method,
    headers: { ...c.headers, ...headers, ...(c.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: c.body !== undefined ? JSON.stringify(c.body) : undefined,
  });

/** The code express-openapi-validator's answer maps to (the router's own mapping), or null for an acceptance. */
function oracleCode(c: Case, a: OracleAnswer, doc: Json): string | null {
  if (a.oracle === 'ok') return null;
  if (a.status !== 400) return `status ${a.status}`;
  return refusalOf(a.errors, doc, requestSchemaOf(doc, c.method, routeTable(c.variant).byId.get(c.opId)!.path)).code;
}

const oracles = new Map<string, Oracle>();
let server: TestServer;
beforeAll(async () => {
  for (const v of [1, 2] as const) {
    oracles.set(`request ${v}`, await startOracle(v));
    oracles.set(`response ${v}`, await startOracle(v, { requests: false }));
  }
  server = await startTestServer({ webhookDispatcherFactory: null });
}, 120_000);
afterAll(async () => {
  for (const o of oracles.values()) await o.close();
  await server?.close();
});

describe('the compiled checks agree with express-openapi-validator (the oracle)', () => {
  it.each([1, 2] as const)(
    'Variant %s: every request of the corpus, the same decision and code',
    async (variant) => {
      const doc = loadBundledDocument(variant);
      const oracle = oracles.get(`request ${variant}`)!;
      const cases = corpus(variant);
      const disagreements: string[] = [];
      let refused = 0;
      for (const c of cases) {
        const theirs = oracleCode(c, (await (await send(oracle.url, c)).json()) as OracleAnswer, doc);
        const match = routeTable(variant).match(c.method, c.path)!;
        const query = Object.fromEntries(new URLSearchParams(c.query));
        const headers = Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k.toLowerCase(), v]));
        const ours = validateRequest(variant, c.opId, { params: match.params, query, headers, body: c.body })?.code ?? null;
        if (ours !== null) refused++;
        if (ours !== theirs) disagreements.push(`${c.opId} ${c.label} ${target(c)}: ours ${ours}, oracle ${theirs}`);
      }
      expect(disagreements).toEqual([]);
      // the corpus holds both acceptances and refusals, enough of each to mean something
      expect([cases.length > 300, refused > 100, cases.length - refused > 50]).toEqual([true, true, true]);
    },
    300_000,
  );

  it.each([1, 2] as const)(
    'Variant %s: every answer the reference server gives to the corpus, the same verdict',
    async (variant) => {
      const oracle = oracles.get(`response ${variant}`)!;
      const key = server.merchants.find((m) => m.variant === variant)!.apiKey;
      const disagreements: string[] = [];
      const statuses = new Set<number>();
      let n = 0;
      for (const c of corpus(variant)) {
        const entry = routeTable(variant).byId.get(c.opId)!;
        // a stream never ends; a simulated timeout waits
        if (c.opId === 'sandboxStreamEvents' || c.opId === 'sandboxReset') continue;
        const auth = entry.auth && entry.auth.scheme !== 'SessionToken' ? { [entry.auth.header]: key } : {};
        const r = await send(server.baseUrl, c, auth);
        const text = await r.text();
        const body = text === '' ? undefined : (JSON.parse(text) as unknown);
        statuses.add(r.status);
        const ours = validateResponse(variant, c.opId, r.status, body) === null;
        const id = String(n++);
        oracle.replay.set(id, { status: r.status, body });
        const answer = await (await send(oracle.url, c, { 'x-replay': id })).text();
        const theirs = !answer.includes('"oracle":"error"');
        if (ours !== theirs) disagreements.push(`${c.opId} ${c.label} → ${r.status} ${text.slice(0, 200)}: ours ${ours}, oracle ${theirs}`);
      }
      expect(disagreements).toEqual([]);
      expect([n > 300, [200, 400, 404].every((s) => statuses.has(s))]).toEqual([true, true]);
    },
    600_000,
  );
});
