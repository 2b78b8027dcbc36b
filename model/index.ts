/**
 * The one model of the rules: a pure interpretation of the contract's facts in
 * `generated/` — the state machine, the payment window, the token lifetime, ownership, the
 * vendorReference, the fields a record never changes — that the reference server (one status, one
 * instant), the conformance suite (sets of statuses, intervals) and the proxy (its tolerance, its
 * bounded memory) all call. No I/O, no clock: time comes in as an interval (`time.ts`). Small
 * functions over plain data, as fast-check's `examples/004-stateMachine` writes a model.
 * It imports only generated/ and lib/; everyone else may import it (eslint.config.js).
 */
export {
  type Interval,
  type Verdict,
  at,
  shift,
  within,
  reached,
  paymentWindowSeconds,
  maxPaymentWindowSeconds,
  expiryOf,
} from './time.ts';
export {
  type Status,
  type Transition,
  type TransitionId,
  type EventName,
  type GuardFacts,
  type Outcome,
  type TxFacts,
  type Answer,
  EXPIRY,
  INITIAL,
  outcomeOf,
  decide,
  expiredBy,
  statusesDuring,
  judgeExpiry,
  expiryInstantAllowed,
  type ExpirySight,
  type ExpiryJudgement,
  answers,
  rejectionOf,
  refusedFrom,
  STATUSES,
  requiredStatesOf,
  successStatusOf,
  transitionsOf,
  transitionById,
} from './transitions.ts';
export { IMMUTABLE_FIELDS, type ImmutableField, changedFields, type Timestamps, created, changed, updatedAtAllowed } from './record.ts';
export { TOKEN_LIFETIME_MS, tokenAnswers, tokenExpiry, tokenState, tokenLive } from './token.ts';
export {
  type Refusal,
  refusal,
  type Owned,
  reaches,
  NOT_FOUND,
  notFoundText,
  lookupVendorReference,
  vendorReferenceRefusals,
  judgeOwnership,
  type OwnershipVerdict,
  judgeVendorReference,
  type VendorReferenceVerdict,
  type ReferenceAnswer,
} from './merchant.ts';
export { sameJson, canonicalText } from './same.ts';
export { inAmountRange, type AmountRange, amountsConsistent, amountAnswer, type ConsistencyRule, type RangedMember } from './amount.ts';
export { rateLimitOf, windowEndOf, windowEnd, windowPassed, rateRefuses, waitRange } from './rate.ts';
export { reachable, pathBetween } from './reach.ts';
export {
  MAX_ATTEMPTS,
  retryWindow,
  attemptOutcome,
  attemptDue,
  deliveryProblems,
  type DeliveryView,
  type DeliveryProblem,
} from './retry.ts';
export { clockOffsetMs, clockOffsetProblem } from './clock.ts';
export { parseLocalDateTime } from './local-date.ts';
export {
  type WriteKeys,
  type KeyedRecord,
  sharesKey,
  witnessesOf,
  changedMembers,
  type HeldCounts,
  type CountProblem,
  resetCountProblems,
  type FaultRuleCounts,
  faultRuleAnswers,
  faultRuleProblems,
  type SigningState,
  signersDue,
  signatureProblem,
  extraEvents,
} from './scope.ts';
