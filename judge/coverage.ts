/**
 * What traffic exercised, in the suite's form: the state machine's transitions and the declared
 * (operation, status, code) triples, what it missed, and the codes no black-box traffic can provoke
 * (`NOT_DRIVABLE`, the suite's list too); the judge adds the operations, statuses and events seen.
 */
import { stateMachine, variants, VARIANTS, type Variant } from '../generated/index.ts';
import type { Contract } from './contract.ts';
import type { JudgeCoverage } from './exchange.ts';
import type { JudgeMemory } from './memory.ts';

/** A run's coverage, the suite's and the judge's common part. */
export interface Coverage {
  transitions: { exercised: string[]; missing: string[] };
  codes: { exercised: string[]; missing: string[]; notDriven: string[] };
}

/** Error codes no black-box run can provoke on demand, and why. */
export const NOT_DRIVABLE: Record<string, string> = {
  INTERNAL_ERROR: 'a server fault cannot be provoked',
  STORAGE_UNAVAILABLE: 'needs a full or failing disk (ADR-026)',
  AUTH_THROTTLED: 'needs 20 failed authentications from one address; off in test servers (ADR-027)',
  TOO_MANY_PAYMENT_INTENTS: 'needs x-max-payment-intents + 1 intents on one session; no command aims at it (ADR-029)',
  MERCHANT_INACTIVE: 'needs an inactive merchant',
  CREDIT_LIMIT_EXCEEDED: 'depends on the merchant credit limit (the suite assumes none)',
};

/** The variants the traffic speaks: the one every key is held to, else those keys were pinned to (both before any was). */
function variantsSpoken(memory: JudgeMemory, fixed: Variant | undefined): Variant[] {
  if (fixed !== undefined) return [fixed];
  const seen = VARIANTS.filter((v) => memory.pinned[v] > 0);
  return seen.length ? seen : [...VARIANTS];
}

/** The coverage of the traffic the judge saw. */
export function coverageOf(memory: JudgeMemory, fixed: Variant | undefined, contracts: ReadonlyMap<Variant, Contract>): JudgeCoverage {
  const spoken = variantsSpoken(memory, fixed);
  const { seen } = memory;
  // every operation of the variants, the SDK's (x-internal) ones too: a browser's checkout uses them
  const ops = [...new Set(spoken.flatMap((v) => Object.keys(variants[v === 1 ? 'v1' : 'v2'].operations)))];
  const declared = new Set<string>();
  const notDriven = new Set<string>();
  for (const v of spoken)
    for (const op of ops) {
      const contract = contracts.get(v);
      if (!contract?.has(op)) continue;
      for (const [status, codes] of Object.entries(contract.op(op).errors))
        for (const c of codes) {
          const k = `${op} ${status} ${c}`;
          if (c in NOT_DRIVABLE && !seen.codes.has(k)) notDriven.add(`${k} (${NOT_DRIVABLE[c]})`);
          else declared.add(k);
        }
    }
  const transitions = stateMachine.transitions.map((t) => t.id);
  const events = [...new Set(spoken.flatMap((v) => variants[v === 1 ? 'v1' : 'v2'].webhookEvents))];
  return {
    operations: { exercised: ops.filter((o) => seen.operations.has(o)), missing: ops.filter((o) => !seen.operations.has(o)) },
    statuses: [...seen.statuses].sort(),
    transitions: {
      exercised: transitions.filter((t) => seen.transitions.has(t)),
      missing: transitions.filter((t) => !seen.transitions.has(t)),
    },
    codes: {
      exercised: [...declared].filter((k) => seen.codes.has(k)),
      missing: [...declared].filter((k) => !seen.codes.has(k)),
      notDriven: [...notDriven],
    },
    events: {
      exercised: events.filter((e) => seen.events.has(e)),
      missing: events.filter((e) => !seen.events.has(e)),
      received: seen.deliveries,
      unknownTransaction: seen.unknownTransactionEvents,
    },
    unrouted: seen.unrouted,
  };
}
