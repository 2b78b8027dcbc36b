/**
 * ADR-016: there is no cancel by transaction id. `PUT`/`POST …/partner/transactions/{id}/cancel`
 * on an own PENDING transaction is no operation (404 ROUTE_NOT_FOUND) and changes nothing. The
 * path is not in the contract, so the request is sent raw (recorded like the others) and judged here.
 */
import type { Cmd, Model, Real } from '../model.ts';
import { rawExchange } from '../raw.ts';
import { pick, refusal } from '../model.ts';
import { possibleStatuses, readBack } from './advanceClock.ts';

/** @checks ADR-016 */
export class CancelById implements Cmd {
  constructor(
    readonly method: 'PUT' | 'POST',
    readonly idx: number,
  ) {}
  check(m: Readonly<Model>): boolean {
    return m.txs.some((t) => t.kind === 'partner');
  }
  async run(m: Model, w: Real): Promise<void> {
    const tx = pick(
      m.txs.filter((t) => t.kind === 'partner'),
      this.idx,
    )!;
    const before = possibleStatuses(w.state, tx, performance.now());
    const path = `/api/v1/public/partner/transactions/${encodeURIComponent(tx.id)}/cancel`;
    const res = await rawExchange(
      w,
      'cancel by transaction id',
      this.method,
      path,
      w.auth('cancelPartnerTransactionByVendorReference', w.key(tx.who)),
    );
    const c = (res.json as { error?: { code?: unknown } } | undefined)?.error?.code;
    const code = typeof c === 'string' ? c : undefined;
    const want = refusal('ROUTE_NOT_FOUND');
    w.check(
      res.status === want.status && code === want.code,
      'cancel by transaction id',
      '$',
      `${this.method} ${path} answered ${res.status} ${String(code ?? '')}; cancel by transaction id is not offered (ADR-016)`,
      want,
      { status: res.status, code },
    );
    // the status may also have moved on its own (expiry) while the requests were in flight
    const { status: s, allowed } = await readBack(w, tx, before);
    w.check(allowed.includes(s), 'cancel by transaction id', '$.status', `${this.method} ${path} changed the status to ${s}`, allowed, s);
    w.observe(tx, s);
  }
  toString(): string {
    return `cancelById(${this.method}, #${this.idx})`;
  }
}
