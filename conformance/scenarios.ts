/**
 * The sandbox scenarios (`x-sandbox-scenarios` of B1, ADR-043), checked in the sandbox
 * profile after the tour: each magic customer phone reaches its outcome after its
 * `afterSeconds` of sandbox time (and not before), the one left alone expires with the
 * payment window, and each magic total answers its 422 code without creating anything.
 * Black-box: the scenarios are read from the variant's bundled document.
 */
import { fixedTotal } from './gen.ts';
import { INITIAL } from '../model/index.ts';
import type { World } from './world.ts';
import { flushWitnesses } from './witness.ts';

type Json = Record<string, unknown>;

interface Scenarios {
  customerPhones: Array<{ customerPhone: string; outcome: 'confirmed' | 'cancelled' | 'expires'; afterSeconds: number | null }>;
  amounts: Array<{ total: number; code: string }>;
}

const OUTCOME_STATUS = { confirmed: 'APPROVED', cancelled: 'CANCELED', expires: 'EXPIRED' } as const;

/** The scenarios of B1 in the contract (null when the variant declares none). */
export function declaredScenarios(w: World): Scenarios | null {
  const o = w.contract.op('createPartnerTransaction');
  const op = ((w.contract.doc.paths as Json)[o.path] as Json)[o.method.toLowerCase()] as Json;
  const ref = op['x-sandbox-scenarios'] as Json | undefined;
  if (!ref) return null;
  let s: unknown = ref;
  if (typeof ref.$ref === 'string')
    for (const part of ref.$ref.replace(/^#\//, '').split('/'))
      s = (s === ref ? w.contract.doc : (s as Json))[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return s as Scenarios;
}

/**
 * Runs every scenario against the sandbox; a failing check throws the suite's ConformanceError.
 * @checks ADR-043
 */
export async function checkScenarios(w: World, paymentWindowSeconds: number): Promise<number> {
  const s = declaredScenarios(w);
  if (!s) return 0;
  const key = w.cfg.apiKey;
  const create = (body: Json) => w.client.call('createPartnerTransaction', { headers: w.auth('createPartnerTransaction', key), body });
  const item = (total: number) => [{ name: 'Scenario item', quantity: 1, unitPrice: total }];
  const read = async (id: string) => {
    const ex = await w.client.call('getPartnerTransaction', {
      pathParams: { transactionId: id },
      headers: w.auth('getPartnerTransaction', key),
    });
    w.check(ex.status === 200, 'getPartnerTransaction', '$', `read of scenario transaction ${id} answered ${ex.status}`);
    return { status: (ex.json as { status: string }).status, receivedAt: ex.receivedAt };
  };
  const statusOf = async (id: string) => (await read(id)).status;
  const advance = async (seconds: number) => {
    const ex = await w.client.call('sandboxAdvanceClock', { headers: w.auth('sandboxAdvanceClock', key), body: { seconds } });
    w.check(ex.status === 200, 'sandboxAdvanceClock', '$', `clock advance answered ${ex.status}`);
    w.state.advanced.main += seconds;
  };

  let checked = 0;
  const created: Array<{ id: string; phone: Scenarios['customerPhones'][number]; sentAt: number }> = [];
  // an ordinary total inside x-amount-range: only the phone is magic
  const total = fixedTotal(w.contract, 'createPartnerTransaction', 1);
  for (const phone of s.customerPhones) {
    const ex = await create({ customerPhone: phone.customerPhone, total, currency: 'MAD', items: item(total) });
    w.check(ex.status === 201, 'createPartnerTransaction', '$', `magic phone ${phone.customerPhone} answered ${ex.status}, expected 201`);
    created.push({ id: (ex.json as { id: string }).id, phone, sentAt: ex.sentAt });
  }
  // Just before the earliest action nothing has happened; then each action in turn, then the window.
  const steps = [...new Set(created.map((c) => c.phone.afterSeconds).filter((n): n is number => n !== null))].sort((a, b) => a - b);
  let at = 0;
  for (const step of steps) {
    if (step - 1 > at) {
      await advance(step - 1 - at);
      at = step - 1;
    }
    for (const c of created) {
      const r = await read(c.id);
      const st = r.status;
      // the sandbox clock also ran in real time since the creation was sent: an action that may be
      // due by the read's answer (a loaded machine takes seconds) is not judged before its time
      const mayBeDue = c.phone.afterSeconds !== null && c.phone.afterSeconds * 1000 <= at * 1000 + (r.receivedAt - c.sentAt);
      if (!mayBeDue)
        w.check(
          st === INITIAL,
          'x-sandbox-scenarios',
          `$.customerPhones[${c.phone.customerPhone}]`,
          `magic phone ${c.phone.customerPhone} is ${st} after ${at} s, before its action`,
          INITIAL,
          st,
        );
    }
    await advance(step - at);
    at = step;
    for (const c of created.filter((x) => x.phone.afterSeconds === step)) {
      const st = await statusOf(c.id);
      w.check(
        st === OUTCOME_STATUS[c.phone.outcome],
        'x-sandbox-scenarios',
        `$.customerPhones[${c.phone.customerPhone}]`,
        `magic phone ${c.phone.customerPhone} (${c.phone.outcome} after ${step} s) is ${st}`,
        OUTCOME_STATUS[c.phone.outcome],
        st,
      );
      checked++;
    }
  }
  await advance(Math.max(1, paymentWindowSeconds - at));
  for (const c of created.filter((x) => x.phone.afterSeconds === null)) {
    const st = await statusOf(c.id);
    w.check(
      st === OUTCOME_STATUS[c.phone.outcome],
      'x-sandbox-scenarios',
      `$.customerPhones[${c.phone.customerPhone}]`,
      `magic phone ${c.phone.customerPhone} (${c.phone.outcome}) is ${st} after the payment window`,
      OUTCOME_STATUS[c.phone.outcome],
      st,
    );
    checked++;
  }
  for (const a of s.amounts) {
    const ex = await create({ customerPhone: '212612345678', total: a.total, currency: 'MAD', items: item(a.total) });
    const code = (ex.json as { error?: { code?: string } } | null)?.error?.code;
    w.check(
      ex.status === 422 && code === a.code,
      'x-sandbox-scenarios',
      `$.amounts[${a.total}]`,
      `magic total ${a.total} answered ${ex.status} ${String(code)}, expected 422 ${a.code}`,
      a.code,
      code,
    );
    checked++;
  }
  // the other merchant after the scenarios' writes (the clock moves): as it was (witness.ts)
  await flushWitnesses(w);
  return checked;
}
