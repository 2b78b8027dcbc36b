/**
 * The sandbox's fault rule (failures on demand, ADR-052): read it with how many calls it has
 * answered, set it (a new id, counted from 0) or remove it. Kept in the merchant's sandbox
 * state, where http/simulate.ts counts the calls it answers.
 */
import type { Core } from '../core.ts';
import type { FaultRuleRecord } from '../domain/types.ts';
import { ApiError } from '../http/errors.ts';
import { newFaultRuleId, ruleFailure, simulatedOperation, simulateSpec, unsupported, withRule } from '../http/simulate.ts';
import type { Handlers } from './context.ts';

const refuse = (path: string, message: string) => new ApiError('VALIDATION_ERROR', `${path} ${message}`, [{ path, message }]);

function view(core: Core, merchantId: string) {
  const r = core.merchantState(merchantId).faultRule;
  if (!r) return { rule: null };
  return { rule: { ...r, remaining: r.times - r.used } };
}

export const sandboxFaultHandlers: Handlers<'sandboxGetFaultRule' | 'sandboxSetFaultRule'> = {
  sandboxGetFaultRule: (core, ctx) => Promise.resolve({ status: 200, body: view(core, ctx.merchant.id) }),

  /**
   * Sets or removes the caller's rule; the operations named must declare the header and the
   * failure's status in the caller's variant (the rule itself is enforced by http/simulate.ts).
   */
  async sandboxSetFaultRule(core, ctx) {
    const input = ctx.body.rule;
    const id = ctx.merchant.id;
    let rule: FaultRuleRecord | null = null;
    if (input) {
      if (input.failure === 'timeout' && input.timeoutSeconds === undefined)
        throw refuse('body.rule.timeoutSeconds', 'is required with failure timeout');
      if (input.failure !== 'timeout' && input.timeoutSeconds !== undefined)
        throw refuse('body.rule.timeoutSeconds', 'is only allowed with failure timeout');
      if (input.failure !== '429' && input.retryAfterSeconds !== undefined)
        throw refuse('body.rule.retryAfterSeconds', 'is only allowed with failure 429');
      rule = {
        id: newFaultRuleId(),
        failure: input.failure,
        timeoutSeconds: input.timeoutSeconds ?? null,
        retryAfterSeconds: input.failure === '429' ? (input.retryAfterSeconds ?? null) : null,
        operations: input.operations ?? null,
        times: input.times,
        used: 0,
        setAt: new Date(core.clock.now()).toISOString(),
      };
      const f = ruleFailure(rule);
      const v = ctx.merchant.variant;
      if (rule.operations) {
        rule.operations.forEach((opId, i) => {
          const op = simulatedOperation(v, opId);
          if (!op) throw refuse(`body.rule.operations.${i}`, `${opId} is not an operation of Variant ${v}`);
          const why = unsupported(op, f);
          if (why) throw refuse(`body.rule.operations.${i}`, why);
        });
      } else if (!simulateSpec().ops.some((op) => op.variant === v && unsupported(op, f) === null)) {
        throw refuse('body.rule.failure', `no operation of Variant ${v} declares ${input.failure}`);
      }
    }
    await core.updateMerchantState(id, (st) => withRule(st, rule));
    return { status: 200, body: view(core, id) };
  },
};
