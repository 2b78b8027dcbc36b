/** Scope (scope.ts): a write's witnesses, a reset's counts, a fault rule's count, the secrets that sign. */
import { describe, expect, it } from 'vitest';
import {
  changedMembers,
  extraEvents,
  faultRuleAnswers,
  faultRuleProblems,
  resetCountProblems,
  signatureProblem,
  signersDue,
  witnessesOf,
  type KeyedRecord,
  type WriteKeys,
} from './scope.ts';

const keys = (k: Partial<WriteKeys>): WriteKeys => ({ vendorReferences: [], transactionIds: [], sessionTokens: [], ...k });
const records: KeyedRecord[] = [
  { id: 't1', merchant: 'A', vendorReference: 'ORDER-1' },
  { id: 't2', merchant: 'B', vendorReference: 'ORDER-1' },
  { id: 't3', merchant: 'B', vendorReference: 'order-1' },
  { id: 't4', merchant: 'B', vendorReference: null, sessionToken: 'st_1' },
  { id: 't5', merchant: 'A', vendorReference: 'ORDER-2' },
];

describe('witnessesOf: the other merchants records a write shares a key with', () => {
  it('the same reference under another merchant, exactly as written (ADR-049)', () => {
    expect(witnessesOf('A', keys({ vendorReferences: ['ORDER-1'] }), records).map((r) => r.id)).toEqual(['t2']);
  });
  it("the writer's own records are not witnesses; a write naming another merchant's id or session is", () => {
    expect(witnessesOf('A', keys({ vendorReferences: ['ORDER-2'], transactionIds: ['t1'] }), records)).toEqual([]);
    expect(witnessesOf('A', keys({ transactionIds: ['t3'] }), records).map((r) => r.id)).toEqual(['t3']);
    expect(witnessesOf('A', keys({ sessionTokens: ['st_1'] }), records).map((r) => r.id)).toEqual(['t4']);
    expect(witnessesOf('B', keys({ vendorReferences: ['ORDER-1'] }), records).map((r) => r.id)).toEqual(['t1']);
  });
});

describe('a sandbox state read twice', () => {
  it('a member that changed, the moving ones aside, whatever the members order', () => {
    expect(changedMembers({ now: 'a', offsetSeconds: 60 }, { offsetSeconds: 60, now: 'b' }, ['now'])).toEqual([]);
    expect(changedMembers({ now: 'a', offsetSeconds: 60 }, { now: 'b', offsetSeconds: 0 }, ['now'])).toEqual(['offsetSeconds']);
    expect(changedMembers({ rule: null }, { rule: { times: 1 } })).toEqual(['rule']);
    expect(changedMembers({ url: null, secret: null }, { url: null, secret: 'whsec_x', enabled: true })).toEqual(['enabled', 'secret']);
  });
});

describe("a reset's deleted counts (ADR-041)", () => {
  const held = { transactions: 3, sms: 2, deliveries: 1, sessionsAtLeast: 2 };
  it('without deleteData every count is 0', () => {
    expect(resetCountProblems({ transactions: 0, sessions: 0, sms: 0, deliveries: 0 }, null)).toEqual([]);
    expect(resetCountProblems({ transactions: 1, sessions: 0, sms: 0, deliveries: 0 }, null)).toEqual([
      { member: 'transactions', expected: 0, actual: 1 },
    ]);
  });
  it('with it, what the lists held exactly, and at least the sessions known', () => {
    expect(resetCountProblems({ transactions: 3, sessions: 5, sms: 2, deliveries: 1 }, held)).toEqual([]);
    expect(resetCountProblems({ transactions: 4, sessions: 1, sms: 2, deliveries: 1 }, held)).toEqual([
      { member: 'transactions', expected: 3, actual: 4 },
      { member: 'sessions', expected: 'at least 2', actual: 1 },
    ]);
    expect(resetCountProblems(undefined, held).map((p) => p.member)).toEqual(['transactions', 'sms', 'deliveries', 'sessions']);
  });
});

describe('a fault rule answers exactly its times calls (ADR-052)', () => {
  it('answers while it has answered fewer than times', () => {
    expect(faultRuleAnswers({ times: 2, used: 1 })).toBe(true);
    expect(faultRuleAnswers({ times: 2, used: 2 })).toBe(false);
    expect(faultRuleAnswers(null)).toBe(false);
  });
  it('reads times, used and remaining = times - used', () => {
    expect(faultRuleProblems({ times: 2, used: 1, remaining: 1 }, { times: 2, used: 1 })).toEqual([]);
    expect(faultRuleProblems({ times: 2, used: 3, remaining: -1 }, { times: 2, used: 3 })).toEqual([
      { member: 'used', expected: 2, actual: 3 },
      { member: 'remaining', expected: 0, actual: -1 },
    ]);
    expect(faultRuleProblems({ times: 2, used: 0, remaining: 1 }, { times: 2, used: 0 })).toEqual([
      { member: 'remaining', expected: 2, actual: 1 },
    ]);
    expect(faultRuleProblems(null, null)).toEqual([]);
    expect(faultRuleProblems({ times: 1 }, null)).toEqual([{ member: 'rule', expected: 'null', actual: { times: 1 } }]);
  });
});

describe('the secrets that sign a delivery (ADR-042)', () => {
  const end = 1_000_000;
  const rotated = { secret: 'new', previousSecret: 'old', previousSecretExpiresAt: end };
  it('the current one; during a rotation window both, the new one first; after it the new one alone', () => {
    expect(signersDue({ secret: 's', previousSecret: null, previousSecretExpiresAt: null }, { from: 0, to: 1 })).toEqual({
      must: ['s'],
      may: [],
    });
    expect(signersDue(rotated, { from: end - 10, to: end - 1 })).toEqual({ must: ['new', 'old'], may: [] });
    expect(signersDue(rotated, { from: end, to: end + 5 })).toEqual({ must: ['new'], may: [] });
    expect(signersDue(rotated, { from: end - 5, to: end + 5 })).toEqual({ must: ['new'], may: ['old'] });
  });
  it('finds the old secret alone, the new one not first, the previous one missing in its window, one that no longer signs', () => {
    const during = signersDue(rotated, { from: 0, to: 1 });
    expect(signatureProblem(during, ['new', 'old'])).toBeNull();
    expect(signatureProblem(during, ['old', 'new'])).toBe("the current secret's signature is not the first");
    expect(signatureProblem(during, ['new'])).toBe('not signed with the previous secret while its window is open');
    expect(signatureProblem({ must: ['s1'], may: [] }, ['s0'])).toBe('not signed with the current secret');
    expect(signatureProblem({ must: ['new'], may: [] }, ['new', 'old'])).toBe('signed with a secret that does not sign now');
    expect(signatureProblem({ must: ['new'], may: ['old'] }, ['new', 'old'])).toBeNull();
    expect(signatureProblem({ must: ['new'], may: [] }, ['new', null])).toBe('signed with a secret that does not sign now');
  });
});

describe('the events a list shows beyond those emitted', () => {
  it('a multiset difference, optional events allowed once', () => {
    expect(extraEvents(['transaction.cancelled'], ['transaction.cancelled'])).toEqual([]);
    expect(extraEvents(['transaction.cancelled', 'transaction.cancelled'], ['transaction.cancelled'])).toEqual(['transaction.cancelled']);
    expect(extraEvents(['transaction.expired'], [], ['transaction.expired'])).toEqual([]);
    expect(extraEvents(['transaction.approved'], [])).toEqual(['transaction.approved']);
  });
});
