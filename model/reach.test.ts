/** The model's reach (reach.ts) against the generated x-state-machine table, transition by transition. */
import { describe, expect, it } from 'vitest';
import { stateMachine } from '../generated/contract.ts';
import { EXPIRY, pathBetween, reachable, type Status } from './index.ts';

const STATUSES = Object.keys(stateMachine.states) as Status[];
const moving = stateMachine.transitions.filter((t) => t.from !== null);

describe('reach', () => {
  it('every transition of the table leaves each of its from-statuses, and no other move exists', () => {
    for (const s of STATUSES) {
      const table = moving.filter((t) => (t.from as readonly string[]).includes(s)).map((t) => t.to);
      // one step from s: only the transitions that start from s
      const oneStep = reachable([s], (t) => (t.from as readonly string[] | null)?.includes(s) === true);
      expect([...oneStep].filter((x) => x !== s).sort()).toEqual([...new Set(table)].filter((x) => x !== s).sort());
    }
  });

  it('reachable: a status reaches itself and the to-status of each move, transitively; a final status only itself', () => {
    expect([...reachable(['PENDING'])].sort()).toEqual([...STATUSES].sort());
    expect([...reachable(['APPROVED'])].sort()).toEqual(['APPROVED', 'COMPLETED']);
    for (const s of STATUSES) if (!moving.some((t) => (t.from as readonly string[]).includes(s))) expect([...reachable([s])]).toEqual([s]);
  });

  it('pathBetween: the shortest way, none backwards', () => {
    expect(pathBetween('PENDING', 'PENDING')).toEqual([]);
    expect(pathBetween('PENDING', EXPIRY.to)?.map((t) => t.id)).toEqual([EXPIRY.id]);
    expect(pathBetween('PENDING', 'COMPLETED')?.map((t) => t.to)).toEqual(['APPROVED', 'COMPLETED']);
    expect(pathBetween('CANCELED', 'PENDING')).toBeUndefined();
  });
});
