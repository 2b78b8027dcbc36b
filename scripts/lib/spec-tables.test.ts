/** The tables guides show as `{{table:NAME}}`: each row built from the facts it shows, none typed. */
import { describe, expect, it } from 'vitest';
import { specTable } from './spec-tables.ts';

/** A spec/ of a few facts, read as rule-spec.ts `specValue` reads the real one. */
function specOf(facts: Record<string, unknown>) {
  return (loc: string) => Promise.resolve(facts[loc]);
}

const machine = {
  initial: 'PENDING',
  transitions: [
    { from: null, to: 'PENDING', trigger: { kind: 'merchant', operationId: 'createPartnerTransaction' }, emits: null },
    {
      from: ['PENDING'],
      to: 'APPROVED',
      trigger: { kind: 'customer', operationId: 'sandboxConfirmTransaction' },
      emits: 'transaction.approved',
    },
    { from: ['PENDING'], to: 'EXPIRED', trigger: { kind: 'clock', operationId: 'sandboxAdvanceClock' }, emits: 'transaction.expired' },
  ],
};

describe('guide tables built from spec/', () => {
  const read = specOf({
    'components/schemas/TransactionStatus.yaml#/x-state-machine': machine,
    'components/facts/SandboxScenarios.yaml#/customerPhones': [
      { customerPhone: '212600000201', outcome: 'confirmed', operationId: 'sandboxConfirmTransaction', afterSeconds: 45 },
      { customerPhone: '212600000202', outcome: 'cancelled', operationId: 'sandboxCancelTransaction', afterSeconds: 30 },
      { customerPhone: '212600000203', outcome: 'expires', operationId: null, afterSeconds: null },
    ],
    'components/facts/SandboxScenarios.yaml#/amounts': [
      { total: 700.01, code: 'MERCHANT_INACTIVE' },
      { total: 900.5, code: 'NO_SUCH_CODE' },
    ],
    'components/schemas/ErrorCode.yaml#/oneOf': [{ const: 'MERCHANT_INACTIVE', 'x-status': 422 }],
  });

  it('a row per magic phone: its delay, its move and where that leads, from the state machine', async () => {
    expect((await specTable('sandbox-phones', read))!.split('\n')).toEqual([
      '| `customerPhone` | What the customer does |',
      '|---|---|',
      '| `212600000201` | confirmed 45 s of sandbox time after creation, as `sandboxConfirmTransaction` would (`APPROVED`, `transaction.approved`) |',
      // a move no transition takes from the initial status is said so (lint refuses the scenario too)
      '| `212600000202` | cancelled 30 s of sandbox time after creation, as `sandboxCancelTransaction` would (no transition takes it from the initial status) |',
      '| `212600000203` | expires: nothing is scheduled, the payment window ends it (`EXPIRED`, `transaction.expired`) |',
    ]);
  });

  it('a row per magic total: the status of its code from the error catalogue', async () => {
    expect((await specTable('sandbox-totals', read))!.split('\n').slice(2)).toEqual([
      '| `700.01` | 422 `MERCHANT_INACTIVE` |',
      '| `900.5` | (a code the catalogue does not hold) `NO_SUCH_CODE` |',
    ]);
  });

  it('the webhook retry schedule, inline: each delay in the largest unit that writes it whole, and the jitter', async () => {
    const retry = (delaysSeconds: number[]) =>
      specTable(
        'webhook-retry-delays',
        specOf({ 'components/schemas/WebhookHeaders.yaml#/x-webhook-delivery/retry': { delaysSeconds, jitter: 0.15 } }),
      );
    expect(await retry([0, 5, 90, 300, 5400, 7200])).toBe('0 s, 5 s, 90 s, 5 min, 90 min and 2 h (±15 %)');
    expect(await retry([60])).toBe('1 min (±15 %)');
    expect(await retry([])).toBeUndefined();
  });

  it('no table for a name it does not know, or without its facts', async () => {
    expect(await specTable('sandbox-nothing', read)).toBeUndefined();
    expect(await specTable('sandbox-phones', specOf({}))).toBeUndefined();
  });
});
