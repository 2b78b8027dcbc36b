/**
 * What a suite run exercised: the state machine's transitions and the declared (operation, status,
 * code) triples of the operations the suite drives, what it missed, and the codes no black-box run
 * can provoke. The operations come from the contract (every public one the profile reaches, x-sandbox
 * ones only in the sandbox profile), less the few the suite does not aim at, named below with why.
 */
import { stateMachine } from '../generated/index.ts';
import type { Finding } from '../judge/report.ts';
import type { World } from './world.ts';
import { forbiddenMoves, moveKey } from './commands/moves.ts';
import { edgeCoverage } from './edges.ts';
import { NOT_DRIVABLE, type Coverage } from '../judge/coverage.ts';

export type { Coverage };

/** A suite run's coverage; the proxy's has no moves: it drives nothing. */
export interface SuiteCoverage extends Coverage {
  /** Each forbidden move (operation, status before, answer) of x-state-machine the profile reaches (`commands/moves.ts`). */
  moves: { exercised: string[]; missing: string[] };
  /**
   * The contract's time limits (`edges.ts`), each probed just inside and at its end within a second
   * (sandbox profile): probed, missing (a probe that landed more than a second from its edge, on a
   * loaded machine), and those the profile cannot probe, with why (all of them in the core profile).
   */
  edges: { probed: string[]; missing: string[]; notProbed: string[] };
}

/** Public operations whose codes the suite does not aim at, and why. */
const NOT_AIMED_AT: Record<string, string> = {
  sandboxGetClock: "read by the setup and the witnesses (the other merchant's clock after the main merchant's sandbox writes)",
  sandboxListSms: 'read by the SMS outbox check; its 400 is judged by the parameter probes, its 401 is not aimed at',
  sandboxListWebhookDeliveries:
    'read by the retry-schedule check (filtered by transaction); its 400 is judged by the parameter probes, its 401 is not aimed at',
  sandboxRedeliverWebhook:
    "called by the webhook-secret check (a redelivery, and the other merchant's key refused) and the parameter probes; its 401 is not aimed at",
  sandboxGetWebhookEndpoint:
    "read by the retry-schedule, webhook-secret and reset checks and the witnesses (the other merchant's endpoint); its 401 is not aimed at",
  sandboxSetWebhookEndpoint:
    'called by the retry-schedule check (its own receiver, then the endpoint back), the webhook-secret check (a secret, then the one before) and with invalid bodies; its 401, 413 and 415 are not aimed at',
  sandboxSendTestWebhook:
    'called with invalid bodies only (the suite judges events of real transitions); its 401, 413 and 415 are not aimed at',
  sandboxRotateWebhookSecret: 'called by the webhook-secret check and with invalid bodies; its 401, 413 and 415 are not aimed at',
  sandboxStreamEvents: 'a stream for paylater listen; the suite receives webhooks directly',
  sandboxListTransactions:
    'read by the list checks (to its end; filtered by status and reference, in small pages), the witnesses and the data reset; its 401 is not aimed at',
  sandboxReset:
    "its answer and effect are judged by the sandbox reset checks (clock and rate-limit window back, deleted counts with and without deleteData, the other merchant's sandbox untouched, ADR-041), its 400 by the invalid-body probes; its 401, 413 and 415 are not aimed at",
  sandboxGetFaultRule: 'read by the failures-on-demand check (ADR-052); its 401 is not aimed at',
  sandboxGetApiLog: 'read by the API log check (ADR-056); its 401 is not aimed at',
  sandboxSetApiLog: 'called by the API log check (ADR-056) and with invalid bodies; its 401, 413 and 415 are not aimed at',
  sandboxSetFaultRule: 'called by the failures-on-demand check (ADR-052) and with invalid bodies; its 401, 413 and 415 are not aimed at',
  getHealth: 'its 200 without a key is judged by the service probe (ADR-040); its 400 (an unknown query parameter) is not aimed at',
  getReadiness:
    'its 200 without a key is judged by the service probe (ADR-040); its 400 is not aimed at, and 503 NOT_READY needs a store refusing writes',
};

/** Not aimed at in the core profile: a session token verifies only a transaction the sandbox pay step made. */
const NOT_AIMED_AT_IN_CORE: Record<string, string> = {
  getTransactionStatusBySessionToken: 'needs a checkout transaction, which only the sandbox can make',
};

/** The operations whose declared codes a run of this profile is expected to exercise. */
export function drivenOperations(w: World): string[] {
  return Object.entries(w.contract.ops)
    .filter(([id, o]) => !o.internal && (w.sandbox || !o.sandbox) && !(id in NOT_AIMED_AT) && (w.sandbox || !(id in NOT_AIMED_AT_IN_CORE)))
    .map(([id]) => id);
}

/**
 * The coverage of a run; with `asFindings` (a full sandbox run), every transition or drivable code
 * not exercised is also returned as a finding.
 */
export function coverageOf(w: World, asFindings: boolean, seed: number): { coverage: SuiteCoverage; findings: Finding[] } {
  const wantTransitions = stateMachine.transitions
    .filter((t) => w.sandbox || !w.contract.op(t.trigger.operationId).sandbox)
    .map((t) => t.id);
  const declared: string[] = [];
  const notDriven: string[] = [];
  for (const op of drivenOperations(w)) {
    for (const [status, codes] of Object.entries(w.contract.op(op).errors)) {
      for (const code of codes) {
        const k = `${op} ${status} ${code}`;
        if (code in NOT_DRIVABLE) notDriven.push(`${k} (${NOT_DRIVABLE[code]})`);
        else declared.push(k);
      }
    }
  }
  const exercisedCodes = declared.filter((k) => w.state.coverage.codes.has(k));
  const missingCodes = declared.filter((k) => !w.state.coverage.codes.has(k));
  const missingTransitions = wantTransitions.filter((t) => !w.state.coverage.transitions.has(t));
  const wantMoves = forbiddenMoves(w).map((m) => moveKey(m.op, m.from, m.status, m.code));
  const missingMoves = wantMoves.filter((k) => !w.state.coverage.moves.has(k));
  const coverage: SuiteCoverage = {
    transitions: { exercised: [...w.state.coverage.transitions].sort(), missing: missingTransitions },
    codes: { exercised: exercisedCodes, missing: missingCodes, notDriven },
    moves: { exercised: wantMoves.filter((k) => w.state.coverage.moves.has(k)), missing: missingMoves },
    edges: edgeCoverage(w.state),
  };
  const findings: Finding[] = [];
  if (asFindings) {
    for (const m of notExercised(coverage)) {
      findings.push({
        title: `not exercised: ${m}`,
        operation: m.split(' ')[1]!,
        jsonPath: '$',
        message: `${m} was never exercised: the server never answered it where the model expected it`,
        phase: 'coverage',
        commands: [],
        curl: '',
        seed,
        replay: '',
      });
    }
  }
  return { coverage, findings };
}

/** What a run's coverage shows it did not exercise, each as a report names it. */
export const notExercised = (c: SuiteCoverage): string[] => [
  ...c.transitions.missing.map((t) => `transition ${t}`),
  ...c.codes.missing.map((code) => `error ${code}`),
  ...c.moves.missing.map((k) => `refusal ${k}`),
];
