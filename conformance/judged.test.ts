/**
 * The suite's client hands every exchange to the one judge (judge/, the one `paylater proxy` and
 * HAR judging use), with one memory: an answer valid on its own but contradicting an earlier one
 * fails the command that got it, as a ConformanceError naming the judge's rule.
 */
import { describe, expect, it } from 'vitest';
import { Contract } from '../judge/contract.ts';
import { createRequest, partnerRecord } from '../judge/test-support/record.ts';
import { Client, JudgeFindingError } from './http.ts';

const KEY = 'sk_test_judged';
const answer = (status: number, json: unknown): Response =>
  new Response(JSON.stringify(json), { status, headers: { 'content-type': 'application/json' } });

/**
 * A Variant 1 client whose server makes a record when B1 is called and answers every B2 with it,
 * changed by `readAs`; B1, then B2 of the record made: the read's exchange.
 */
async function createThenRead(readAs: (rec: Record<string, unknown>) => Record<string, unknown>) {
  const template = partnerRecord(0);
  let made: Record<string, unknown> | undefined;
  const fetchImpl = (async (_url: string, init: RequestInit) => {
    if (init.method === 'GET') return answer(200, readAs(made!));
    made = { ...template, createdAt: new Date().toISOString() };
    return answer(201, made);
  }) as unknown as typeof fetch;
  const c = new Client('http://127.0.0.1:9', Contract.for(1), fetchImpl, undefined, { knownKeys: [KEY] });
  // B1 takes the key in X-Service-Key, B2 in X-Api-Key (Variant 1)
  await c.call('createPartnerTransaction', { headers: { 'X-Service-Key': KEY }, body: createRequest(template) });
  return c.call('getPartnerTransaction', { headers: { 'X-Api-Key': KEY }, pathParams: { transactionId: made!.id as string } });
}

describe("the suite's client judges every exchange with the judge's memory", () => {
  it('the record read back as made: no finding', async () => {
    expect((await createThenRead((rec) => rec)).status).toBe(200);
  });

  it('the record read back with another totalAmount (valid alone): a JudgeFindingError naming the rule', async () => {
    const e = await createThenRead((rec) => ({ ...rec, totalAmount: 600.01 })).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).toBeInstanceOf(JudgeFindingError);
    expect((e as JudgeFindingError).operation).toBe('getPartnerTransaction');
    expect((e as JudgeFindingError).message).toMatch(/other than an earlier answer showed \(judge rule: contradiction\)$/);
  });
});
