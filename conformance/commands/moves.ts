/**
 * The moves of x-state-machine, the rule `state-transitions` checked in one place:
 * - the customer's and the system's allowed moves (`CustomerAction`: confirm, cancel, complete),
 *   each answer one the model allows from the statuses the transaction may be in;
 * - every refusal from every state that must refuse it (`ForbiddenMoves`): each move x-state-machine
 *   forbids (`stateMachine.rejections`) is driven from each status that forbids it, once per run, with
 *   the transaction's status certain in the model; coverage counts (operation, status before, answer)
 *   (`coverage.moves`), not (operation, answer). The states are reached the way the profile can: in
 *   the sandbox by the customer's moves, a paid session and the clock (EXPIRED, COMPLETED included),
 *   in the core profile by B4 alone. A second change is made a few seconds after the first on the
 *   sandbox clock, so each change's instant is told apart (`instants.ts`).
 */
import { stateMachine, tokenLifetimeSeconds } from '../../generated/index.ts';
import type { Exchange } from '../http.ts';
import { changed } from '../instants.ts';
import type { Cmd, Model, Outcome, Real } from '../model.ts';
import { pick, refusal } from '../model.ts';
import type { Status, Tx } from '../model-state.ts';
import { checkOf, sameAsFirst, sameName } from '../repeated.ts';
import { reachable as reachableBy, transitionsOf, EXPIRY, INITIAL } from '../../model/index.ts';
import { advanceMainClock, paymentWindowSeconds, possibleStatuses } from './advanceClock.ts';
import { allowedAnswers, settleRefused } from './cancelTransaction.ts';
import { CreateSession } from './createSession.ts';
import { a1Room } from './a1Budget.ts';
import { CreateTransaction } from './createTransaction.ts';
import { checkRecord } from './getTransaction.ts';
import { PaySession } from './paySession.ts';
import { tokenExpiredDuring, VerifyByToken } from './verifyByToken.ts';

type Json = Record<string, unknown>;
const B4 = 'cancelPartnerTransactionByVendorReference';
const PAY = 'sandboxPaySession';

/** A forbidden move: an operation and a status it is refused from, with the refusal x-state-machine gives. */
export interface ForbiddenMove {
  op: string;
  from: Status;
  status: number;
  code: string;
}

/**
 * The statuses a profile can reach a transaction in, from x-state-machine: the model's `reachable`
 * from the initial one by the transitions of operations the profile drives (no sandbox operation in
 * core; the clock's expiry is the sandbox's `sandboxAdvanceClock`).
 */
export function reachable(sandbox: boolean, isSandboxOp: (op: string) => boolean): Set<Status> {
  return reachableBy([INITIAL], (t) => sandbox || !isSandboxOp(t.trigger.operationId));
}

/**
 * The forbidden moves a run of this profile drives: every rejection of x-state-machine of an
 * operation the suite drives (no x-internal one; sandbox ones in the sandbox), from every status
 * the profile reaches. The payment of a session acts on a checkout transaction, which has no
 * vendorReference: its statuses are those reached from its creation by the operations that do not
 * name their transaction by a vendorReference (a machine whose only way to CANCELED is B4 never
 * shows a paid session refused from CANCELED).
 */
export function forbiddenMoves(w: Pick<Real, 'contract' | 'sandbox' | 'state'>): ForbiddenMove[] {
  const has = (op: string): boolean => op in w.contract.ops && !w.contract.op(op).internal;
  const sandboxOp = (op: string): boolean => has(op) && w.contract.op(op).sandbox;
  const states = reachable(w.sandbox, sandboxOp);
  const byReference = (op: string): boolean =>
    op in w.contract.ops && w.contract.parameters(op).some((p) => p.in === 'path' && p.name === 'vendorReference');
  const checkoutStates = reachableBy(
    stateMachine.transitions.filter((t) => t.from === null && t.trigger.operationId === PAY).map((t) => t.to),
    (t) => (w.sandbox || !sandboxOp(t.trigger.operationId)) && !byReference(t.trigger.operationId),
  );
  // a session is paid with its token: its transaction expires within the token's lifetime only if the window is shorter
  const payExpired = tokenLifetimeSeconds > paymentWindowSeconds(w.state) + 2;
  return stateMachine.rejections.flatMap((r) =>
    has(r.trigger.operationId) && (w.sandbox || !sandboxOp(r.trigger.operationId))
      ? r.from
          .filter((f) => (r.trigger.operationId === PAY ? checkoutStates.has(f) && (f !== EXPIRY.to || payExpired) : states.has(f)))
          .map((from) => ({ op: r.trigger.operationId, from, status: r.status, code: r.code }))
      : [],
  );
}

/** The coverage key of an answer to `op` from `from`. */
export function moveKey(op: string, from: string, status: number, code?: string): string {
  return `${op} from ${from} → ${status}${code ? ' ' + code : ''}`;
}

/**
 * Drives `op` on `tx` and judges the answer against the model: x-state-machine's refusal from its
 * status, or the move; a token past its lifetime (A1's session, pay) is refused as such. Records
 * the (operation, status before, answer) when the status before was certain. The answer's record
 * repeats the transaction's values (a checkout transaction's: as first shown).
 */
export async function drive(w: Real, tx: Tx, op: string, outcome: 'success' | 'failed' = 'success'): Promise<Exchange> {
  const headers = w.auth(op, w.key(tx.who));
  const ex =
    op === B4
      ? await w.client.call(op, { pathParams: { vendorReference: tx.vendorReference! }, headers })
      : op === PAY
        ? await w.client.call(op, { headers, body: { session_token: tx.session!.token, outcome } })
        : await w.client.call(op, { pathParams: { transactionId: tx.id }, headers });
  const moves = allowedAnswers(w.state, tx, op, ex, op === PAY ? outcome : undefined);
  const statuses = moves.statuses;
  const expired = op === PAY ? tokenExpiredDuring(w.state, tx.session!, ex) : 'no';
  const allowed: Outcome[] = [];
  if (expired !== 'no') allowed.push(refusal('INVALID_SESSION_TOKEN'));
  if (expired !== 'yes') allowed.push(...moves.allowed);
  w.expectOutcome(ex, allowed);
  const code = (ex.json as { error?: { code?: string } } | undefined)?.error?.code;
  const before = statuses.length === 1 && expired === 'no' ? statuses[0]! : undefined;
  if (before && allowed.some((a) => a.status === ex.status && (a.code === undefined || a.code === code)))
    w.state.coverage.moves.add(moveKey(op, before, ex.status, ex.status >= 400 ? code : undefined));
  if (!w.succeeded(ex)) {
    settleRefused(w, tx, op, ex, statuses);
    return ex;
  }
  const t = transitionsOf(op).find((x) => x.from !== null && (x.from as readonly string[]).includes(tx.status));
  if (!t || (op === PAY && outcome === 'failed')) return ex;
  w.transition(tx, t.id);
  changed(w, tx, ex);
  if (op === PAY) return ex;
  if (tx.kind === 'partner') checkRecord(w, ex, tx, [t.to]);
  else checkCheckoutRecord(w, ex, tx, t.to);
  return ex;
}

/**
 * A sandbox move's answer about a checkout transaction (a PartnerTransaction record): its status,
 * and the values it repeats as the transaction first showed them (names, amount, currency, phone,
 * references, creation instant).
 */
function checkCheckoutRecord(w: Real, ex: Exchange, tx: Tx, status: string): void {
  const rec = ex.json as Json;
  const report = checkOf(w, ex.opId);
  report(rec.status === status, '$.status', `status ${String(rec.status)} after the move to ${status}`, status, rec.status);
  sameName(w, report, tx, 'merchantName', '$.merchantName', rec.merchantName);
  sameName(w, report, tx, 'storeName', '$.storeName', rec.storeName);
  for (const f of ['vendorReference', 'orderReference', 'currency', 'customerPhone'] as const) sameAsFirst(report, tx, f, `$.${f}`, rec[f]);
  sameAsFirst(report, tx, 'amount', '$.totalAmount', rec.totalAmount);
}

export type ActionOp = 'sandboxConfirmTransaction' | 'sandboxCancelTransaction' | 'sandboxCompleteTransaction';

/**
 * Sandbox: the customer confirms or cancels, or the system completes — moves read from x-state-machine.
 * @checks state-transitions, ADR-009
 */
export class CustomerAction implements Cmd {
  constructor(
    readonly op: ActionOp,
    readonly idx: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.state.sandbox && m.txs.some((t) => t.kind === 'partner' && t.who === 'main');
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.kind === 'partner' && t.who === 'main'),
      this.idx,
    )!;
    const t = transitionsOf(this.op)[0]!;
    const ex = await w.client.call(this.op, { pathParams: { transactionId: tx.id }, headers: w.auth(this.op, w.cfg.apiKey) });
    const { statuses, allowed } = allowedAnswers(w.state, tx, this.op, ex);
    w.expectOutcome(ex, allowed);
    if (w.succeeded(ex)) {
      w.transition(tx, t.id);
      changed(w, tx, ex);
      checkRecord(w, ex, tx, [t.to]);
    } else settleRefused(w, tx, this.op, ex, statuses);
  }
  toString(): string {
    return `${this.op.replace('sandbox', '').replace('Transaction', '').toLowerCase()}(#${this.idx})`;
  }
}

/** @checks state-transitions */
export class ForbiddenMoves implements Cmd {
  /** `body(k)`: a valid B1 body; `session`: a valid A1 body. */
  constructor(
    readonly body: (k: number) => Json,
    readonly session: Json,
  ) {}
  check(): boolean {
    return true;
  }
  private async create(m: Model, w: Real, k: number): Promise<Tx | undefined> {
    const n = m.txs.length;
    await new CreateTransaction(this.body(k), 'valid', 'main', 'fresh', 0).run(m, w);
    return m.txs.length > n ? m.txs[m.txs.length - 1] : undefined;
  }
  /** A new checkout transaction of the main merchant: a session (room made in the key's A1 window) paid with `outcome`. */
  private async checkout(m: Model, w: Real, outcome: 'success' | 'failed'): Promise<Tx | undefined> {
    const n = m.sessions.length;
    await a1Room(w);
    await new CreateSession(this.session, 'valid').run(m, w);
    if (m.sessions.length === n) return undefined;
    await new PaySession(m.sessions.length - 1, outcome, 'own').run(m, w);
    return m.sessions[m.sessions.length - 1]!.tx;
  }
  /**
   * Both sides of the payment window through the clock: a transaction confirmed 1 s before its
   * window ends (the last accepted), another (created after it) confirmed 1 s or so after its own
   * ended (the first refused, from EXPIRED), with a checkout transaction left PENDING before both.
   */
  private async windowEdges(
    m: Model,
    w: Real,
    partner: Partial<Record<Status, Tx>>,
    checkout: Partial<Record<Status, Tx>>,
    withCheckout: boolean,
  ): Promise<void> {
    const W = paymentWindowSeconds(w.state) * 1000;
    const c = withCheckout ? await this.checkout(m, w, 'failed') : undefined;
    const last = await this.create(m, w, 15);
    const first = await this.create(m, w, 16);
    if (last) {
      const secs = Math.floor((W - w.age(last, 'main')[1]) / 1000) - 1;
      if (secs >= 1) await advanceMainClock(w, secs);
      await drive(w, last, 'sandboxConfirmTransaction');
    }
    const expired = (t: Tx): boolean => possibleStatuses(w.state, t, performance.now()).join() === EXPIRY.to;
    for (let i = 0; i < 5 && first && !expired(first); i++)
      await advanceMainClock(w, Math.max(1, Math.ceil((W - w.age(first, 'main')[0]) / 1000) + 1));
    if (first && expired(first)) {
      await drive(w, first, 'sandboxConfirmTransaction');
      partner.EXPIRED = first;
    }
    if (c && expired(c)) checkout.EXPIRED = c;
  }
  async run(m: Model, w: Real): Promise<void> {
    const moves = forbiddenMoves(w);
    const wanted = new Set(moves.map((x) => x.from));
    const partner: Partial<Record<Status, Tx>> = {};
    const checkout: Partial<Record<Status, Tx>> = {};
    const needsCheckout = (s: Status): boolean => moves.some((x) => x.op === PAY && x.from === s);
    if (wanted.has('CANCELED')) {
      const tx = await this.create(m, w, 11);
      if (tx) await drive(w, tx, B4);
      if (tx?.status === 'CANCELED') partner.CANCELED = tx;
    }
    if (w.sandbox) {
      for (const s of ['APPROVED', 'COMPLETED'] as const) {
        if (!wanted.has(s)) continue;
        const tx = await this.create(m, w, s === 'APPROVED' ? 13 : 14);
        if (tx) await drive(w, tx, 'sandboxConfirmTransaction');
        if (tx && s === 'COMPLETED') {
          // the second change a few seconds after the first: its instant is its own
          await advanceMainClock(w, 2);
          await drive(w, tx, 'sandboxCompleteTransaction');
        }
        if (tx?.status === s) partner[s] = tx;
      }
      // each checkout transaction is verified and refused its moves as soon as it reaches its status:
      // its token lives x-token-lifetime-seconds, which the clock's later moves (the payment window's,
      // a spent A1 window's) may pass
      const reached = async (s: Status, tx: Tx | undefined): Promise<void> => {
        if (tx?.status !== s) return;
        checkout[s] = tx;
        await this.verifyAndRefuse(m, w, moves, s, tx);
      };
      if (needsCheckout('APPROVED')) await reached('APPROVED', await this.checkout(m, w, 'success'));
      if (needsCheckout('CANCELED')) {
        const tx = await this.checkout(m, w, 'failed');
        await advanceMainClock(w, 2);
        if (tx) await drive(w, tx, 'sandboxCancelTransaction');
        await reached('CANCELED', tx);
      }
      if (needsCheckout('COMPLETED')) {
        const tx = await this.checkout(m, w, 'success');
        await advanceMainClock(w, 2);
        if (tx) await drive(w, tx, 'sandboxCompleteTransaction');
        await reached('COMPLETED', tx);
      }
      if (wanted.has(EXPIRY.to)) await this.windowEdges(m, w, partner, checkout, needsCheckout(EXPIRY.to));
      const expired = checkout[EXPIRY.to];
      if (expired) await this.verifyAndRefuse(m, w, moves, EXPIRY.to, expired);
    }
    // after the clock moved past the window: still PENDING when driven
    if (wanted.has(INITIAL)) partner.PENDING = await this.create(m, w, 12);
    for (const mv of moves) {
      const tx = mv.op === PAY ? undefined : partner[mv.from];
      if (tx && tx.status === mv.from) await drive(w, tx, mv.op);
    }
  }
  /** A checkout transaction in status `s`: its A2 record (its values and last change, the date form), then every move refused from `s`. */
  private async verifyAndRefuse(m: Model, w: Real, moves: ForbiddenMove[], s: Status, tx: Tx): Promise<void> {
    await new VerifyByToken(m.txs.filter((t) => t.kind === 'checkout').indexOf(tx), 'own').run(m, w);
    for (const mv of moves) if (mv.op === PAY && mv.from === s && tx.status === s) await drive(w, tx, mv.op);
  }
  toString(): string {
    return 'forbiddenMoves()';
  }
}
