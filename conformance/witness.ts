/**
 * Every write read back from both merchants: its witnesses. The World notes each write the suite
 * makes (`writes.ts`). After each command (`flushWitnesses`: the commands' wrapper calls it, and so
 * do the phases outside the commands and the commands that write for both merchants), what the
 * OTHER merchant holds that one of those writes could reach is read back through that merchant,
 * and must be as the model holds it:
 * - each record of the other merchant that shares a key with a write (the model's `witnessesOf`:
 *   the same vendorReference, the same transaction id, the same session), whatever the write's
 *   answer (a refused write changes nothing either): B2 (A3 for a checkout transaction), judged as
 *   any read of it; in the sandbox also its lists: the transactions list filtered by its reference,
 *   its SMS and its webhook deliveries filtered by its id, in pages of one;
 * - after a write of the main merchant's sandbox state (a sandbox operation that names no record:
 *   the clock, the reset, the webhook endpoint and its secret, the fault rule, the API log), the
 *   other merchant's state as the GET at the same path shows it (for the reset, which has none:
 *   every such GET) is what it was at the setup (`takeWitnessBaseline`) or after its own last write.
 * Bounded: only records sharing a key with a write, each once per flush; each state GET once per
 * flush. A finding names the write that reached the other merchant.
 */
import { changedMembers, extraEvents, transitionById, witnessesOf, type KeyedRecord } from '../model/index.ts';
import { ConformanceError } from '../judge/answer.ts';
import type { Tx, Who, WriteSeen } from './model-state.ts';
import type { Contract } from '../judge/contract.ts';
import type { World } from './world.ts';
import { possibleStatuses } from './commands/advanceClock.ts';
import { checkRecord } from './commands/getTransaction.ts';
import { readListToEnd } from './commands/pagedList.ts';
import { checkConfirmationSms, readAllPages } from './commands/smsOutbox.ts';
import { checkVerified } from './commands/verified.ts';

type Json = Record<string, unknown>;

const EXPIRY_EVENT = transitionById('expire').emits;
/** Members of a state read that move by themselves: the clock's `now` is the instant of the read. */
const MOVING: Record<string, readonly string[]> = { sandboxGetClock: ['now'] };

/**
 * Runs `fn`; a finding it throws is told in the context `what` (e.g. the write that reached the
 * other merchant), its operation, path and values kept.
 */
export async function inContext<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof ConformanceError) || e.constructor !== ConformanceError) throw e;
    const own = e.message.slice(`${e.operation} ${e.jsonPath}: `.length);
    throw new ConformanceError(e.operation, e.jsonPath, `${what}: ${own}`, e.expected, e.actual);
  }
}

/** A write as a finding names it. */
function describe(x: WriteSeen): string {
  return `${x.method} ${x.path} by the ${x.who} merchant (answered ${x.status})`;
}

/**
 * The GET operations that show a merchant's sandbox state: sandbox, no path parameter, a JSON
 * answer, not a list (no cursor). Per contract, computed once.
 */
const stateOps = new WeakMap<Contract, string[]>();
function stateReads(c: Contract): string[] {
  let ops = stateOps.get(c);
  if (!ops) {
    const paths = (c.doc as { paths?: Record<string, Record<string, { responses?: Record<string, { content?: Json }> }>> }).paths ?? {};
    ops = Object.entries(c.ops)
      .filter(([id, o]) => {
        if (!o.sandbox || o.internal || o.method !== 'GET' || o.path.includes('{')) return false;
        if (c.queryParameters(id).includes('cursor')) return false;
        const content = paths[o.path]?.get?.responses?.[String(o.successStatus)]?.content ?? {};
        return Object.keys(content).some((t) => t.includes('json'));
      })
      .map(([id]) => id);
    stateOps.set(c, ops);
  }
  return ops;
}

/** The state reads a merchant-wide write can change: the GET at its path or a parent path; every one when none is. */
function readersOf(c: Contract, opId: string): string[] {
  const path = c.op(opId).path;
  const all = stateReads(c);
  const near = all.filter((r) => path === c.op(r).path || path.startsWith(`${c.op(r).path}/`));
  return near.length ? near : all;
}

async function readState(w: World, op: string, who: Who): Promise<unknown> {
  const ex = await w.client.call(op, { headers: w.auth(op, w.key(who)) });
  w.expectOutcome(ex, [w.success(op)]);
  return ex.json;
}

/**
 * The other merchant's sandbox state at the setup (sandbox profile): every state GET with its key.
 * Pending writes (the setup's) are forgotten: the witnesses judge the run's.
 */
export async function takeWitnessBaseline(w: World): Promise<void> {
  w.state.writes.splice(0);
  if (!w.sandbox) return;
  for (const op of stateReads(w.contract)) w.state.otherSandbox.set(op, await readState(w, op, 'other'));
}

/**
 * Reads back the witnesses of the writes noted since the last flush (see the file's comment).
 * @checks ADR-049, ADR-041, ADR-042, ADR-052, ADR-056
 */
export async function flushWitnesses(w: World): Promise<void> {
  const writes = w.state.writes.splice(0).filter((x) => x.runId === w.state.runId);
  if (!writes.length) return;
  await readRecords(w, writes);
  if (w.sandbox) await readStates(w, writes);
}

/** The model's transactions as the scope rules see them (their merchant and keys); abandoned runs' left out (their state is not known). */
function keyed(w: World): (KeyedRecord & { tx: Tx })[] {
  const out: (KeyedRecord & { tx: Tx })[] = [];
  for (const tx of w.state.txs.values())
    if (!w.state.abandonedRuns.has(tx.runId))
      out.push({ id: tx.id, merchant: tx.who, vendorReference: tx.vendorReference, sessionToken: tx.session?.token ?? null, tx });
  return out;
}

/** Each record of the other merchant sharing a key with a write, read back through its merchant, and its lists. */
async function readRecords(w: World, writes: WriteSeen[]): Promise<void> {
  if (!writes.some((x) => x.keys.vendorReferences.length + x.keys.transactionIds.length + x.keys.sessionTokens.length > 0)) return;
  const records = keyed(w);
  const found = new Map<string, { tx: Tx; write: WriteSeen }>();
  for (const x of writes)
    for (const r of witnessesOf(x.who, x.keys, records)) if (!found.has(r.id)) found.set(r.id, { tx: r.tx, write: x });
  for (const { tx, write } of found.values())
    await inContext(`after ${describe(write)}, the ${tx.who} merchant's transaction ${tx.id} sharing a key with it`, async () => {
      await readWitness(w, tx);
      if (w.sandbox && tx.kind === 'partner') await listWitness(w, tx);
    });
}

/** The witness read through its own merchant: as any read of it must show it (`checkRecord`, `checkVerified`). */
async function readWitness(w: World, tx: Tx): Promise<void> {
  const op = tx.kind === 'partner' ? 'getPartnerTransaction' : 'verifyTransaction';
  if (!w.contract.has(op)) return;
  const ex = await w.client.call(op, { pathParams: { transactionId: tx.id }, headers: w.auth(op, w.key(tx.who)) });
  const statuses = possibleStatuses(w.state, tx, performance.now(), ex);
  w.expectOutcome(ex, [w.success(op)]);
  if (tx.kind === 'partner') checkRecord(w, ex, tx, statuses);
  else checkVerified(w, op, tx, ex.json as Json, statuses, 'id');
}

/**
 * The witness in its merchant's lists: the transactions list filtered by its reference holds it
 * and its merchant's other transactions with that reference only (each as the model holds it), its
 * SMS are its one confirmation, its webhook deliveries the events its transitions emitted.
 */
async function listWitness(w: World, tx: Tx): Promise<void> {
  const who = tx.who;
  const LIST = 'sandboxListTransactions';
  if (tx.vendorReference !== null && w.contract.has(LIST)) {
    const ref = tx.vendorReference;
    const listed = await readListToEnd(w, LIST, 'SandboxTransactionList', 1, 'transaction', () => undefined, {
      who,
      filter: { vendorReference: ref },
    });
    const mine = [...w.state.txs.values()].filter((t) => t.who === who && t.vendorReference === ref);
    for (const t of mine)
      w.check(
        listed.some((l) => l.item.id === t.id),
        LIST,
        '$.data',
        `the ${who} merchant's list filtered by vendorReference ${ref} does not hold its transaction ${t.id}`,
        t.id,
        listed.map((l) => l.item.id),
      );
    for (const { item, ex } of listed) {
      const t = w.state.txs.get(String(item.id));
      // a transaction this suite did not create: an earlier suite's with the same reference, or one a write made for this merchant
      if (!t)
        w.check(
          String(item.createdAt) < w.suiteStartIso,
          LIST,
          '$.data[].id',
          `the ${who} merchant's list filtered by vendorReference ${ref} holds transaction ${String(item.id)}, which it never created`,
          mine.map((m) => m.id),
          item.id,
        );
      else if (t.who !== who)
        w.check(false, LIST, '$.data[].id', `the ${who} merchant's list holds the ${t.who} merchant's transaction ${t.id}`, 'absent', t.id);
      else {
        const allowed = possibleStatuses(w.state, t, performance.now(), ex);
        w.check(
          allowed.includes(String(item.status)),
          LIST,
          '$.data[].status',
          `transaction ${t.id} is listed ${String(item.status)}, the model expects ${allowed.join(' or ')}`,
          allowed,
          item.status,
        );
      }
    }
  }
  if (w.contract.has('sandboxListSms')) await checkConfirmationSms(w, tx, 1);
  const DELIVERIES = 'sandboxListWebhookDeliveries';
  if (!w.contract.has(DELIVERIES)) return;
  const { items, pages } = await readAllPages(w, DELIVERIES, { transactionId: tx.id, limit: '1' }, w.key(who));
  // every page holds only that transaction's deliveries: the judge's filter rule (judge/pages.ts), as on every page it sees
  const req = `GET ${new URL(pages[0]!.url).pathname}?transactionId=${tx.id}`;
  const listed = items.map((d) => String(d.event));
  const statuses = possibleStatuses(w.state, tx, performance.now(), { sentAt: pages[0]!.sentAt, receivedAt: pages.at(-1)!.receivedAt });
  const emitted = tx.emitted ?? [];
  const optional = statuses.includes('EXPIRED') && EXPIRY_EVENT ? [EXPIRY_EVENT] : [];
  const extra = extraEvents(listed, emitted, optional);
  w.check(
    extra.length === 0,
    DELIVERIES,
    '$.data[].event',
    `${req}: ${extra.join(', ')} listed for transaction ${tx.id}, whose transitions emitted ${emitted.join(', ') || 'nothing'}`,
    emitted,
    listed,
  );
  const missing = extraEvents(
    emitted.filter((e) => e !== EXPIRY_EVENT),
    listed,
  );
  w.check(
    missing.length === 0,
    DELIVERIES,
    '$.data',
    `${req}: ${missing.join(', ')} of transaction ${tx.id} is no longer listed`,
    emitted,
    listed,
  );
}

/**
 * The other merchant's sandbox state after the main merchant's merchant-wide writes: each state GET
 * they can change, read with its key, equal to its last read. Its own writes (the suite's few)
 * make that read the new baseline.
 * @checks ADR-087
 */
async function readStates(w: World, writes: WriteSeen[]): Promise<void> {
  const byMain = new Map<string, WriteSeen>();
  const own = new Set<string>();
  for (const x of writes) {
    if (!x.merchantWide || x.status >= 300) continue;
    for (const r of readersOf(w.contract, x.opId))
      if (x.who === 'main') {
        if (!byMain.has(r)) byMain.set(r, x);
      } else own.add(r);
  }
  for (const [op, x] of byMain) {
    if (own.has(op) || !w.state.otherSandbox.has(op)) continue;
    const before = w.state.otherSandbox.get(op);
    const after = await readState(w, op, 'other');
    const changed = changedMembers(before, after, MOVING[op]);
    w.check(
      changed.length === 0,
      op,
      `$.${changed[0] ?? ''}`,
      `after ${describe(x)}, the other merchant's ${w.contract.op(op).method} ${w.contract.op(op).path} changed (${changed.join(', ')}): a sandbox operation changes its own merchant's sandbox only`,
      before,
      after,
    );
  }
  for (const op of own) w.state.otherSandbox.set(op, await readState(w, op, 'other'));
}
