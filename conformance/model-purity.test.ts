/**
 * Every command's precondition reads the model alone: with the real clock made
 * unreadable and no client anywhere (a Model is plain data), `check` answers for every command the
 * random search generates and every command of the tours, twice the same on the same model. The
 * preconditions that read `performance.now()` or the client's request count before would throw here.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { commandArbitraries } from './commands/index.ts';
import { newModelState, type Session, type Tx } from './model-state.ts';
import type { Cmd, Model } from './model.ts';
import { Contract } from '../judge/contract.ts';
import { probeCommands, tourCommands } from './tour.ts';

/** A model holding a PENDING partner transaction of each merchant, a paid checkout and a live session. */
function model(contract: Contract, profile: 'core' | 'sandbox'): Model {
  const state = newModelState(contract, profile, 1800);
  state.observedAt = 10_000;
  const at = { sentAt: 9_000, receivedAt: 9_010, advAtCreation: 0, runId: 1 };
  const session: Session = { token: 't', who: 'main', total: 600, ...at };
  const tx = (id: string, who: 'main' | 'other', kind: 'partner' | 'checkout'): Tx => ({
    id,
    who,
    kind,
    status: 'PENDING',
    vendorReference: kind === 'partner' ? `ref-${id}` : null,
    created: {},
    ...at,
    ...(kind === 'checkout' ? { session } : {}),
  });
  const txs = [tx('a', 'main', 'partner'), tx('b', 'other', 'partner'), tx('c', 'main', 'checkout')];
  for (const t of txs) state.txs.set(t.id, t);
  return { state, txs, sessions: [session] };
}

describe('preconditions read the model alone', () => {
  for (const variant of [1, 2] as const)
    for (const profile of ['core', 'sandbox'] as const)
      it(`variant ${variant}, ${profile} profile: every command's check, with the real clock unreadable`, () => {
        const contract = Contract.for(variant);
        const cmds: Cmd[] = [
          ...fc.sample(fc.oneof(...commandArbitraries(contract, profile)), { seed: 7, numRuns: 400 }),
          ...probeCommands(contract, profile),
          ...tourCommands(contract, profile),
        ];
        const m = model(contract, profile);
        const clock = vi.spyOn(performance, 'now').mockImplementation(() => {
          throw new Error('a precondition read the real clock');
        });
        try {
          const verdicts = cmds.map((c) => c.check(m));
          expect(cmds.map((c) => c.check(m))).toEqual(verdicts);
          // both answers occur: the checks decide something
          expect(verdicts.filter(Boolean).length).toBeGreaterThan(0);
          expect(verdicts.filter((v) => !v).length).toBeGreaterThan(0);
        } finally {
          clock.mockRestore();
        }
      });
});
