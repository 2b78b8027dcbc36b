/**
 * Each answer judged by the contract of the variant its caller speaks (ADR-070), with the answer
 * judge (answer.ts `judgeResponse`). Both OpenAPI documents say a merchant's variant is pinned per
 * API key, and one server may serve both. With a fixed variant every key is held to it. Without, a
 * key's variant is learned from its first success answer that only one variant's contract accepts
 * (A1's shape, the type of `total`, A3, which only Variant 1 has); until then an answer either
 * variant accepts is accepted. A session token takes the variant of the A1 answer that gave it. The
 * pins are bounded like the transactions: past the bound, the oldest learned is forgotten and
 * learned again.
 */
import { VARIANTS, type Variant } from '../generated/index.ts';
import { answerViolation, ConformanceError, type AcceptedAnswers } from './answer.ts';
import type { Contract } from './contract.ts';
import { finding, isRecord, type Judging, type Seen } from './context.ts';
import { remember, type JudgeMemory, type MerchantMemory, type VariantPin } from './memory.ts';
import { tokenOf } from './sessions.ts';

/** The variant a caller is held to: its key's (merchant) or its session token's; undefined while not known. */
export function pinOf(
  memory: JudgeMemory,
  fixed: Variant | undefined,
  merchant: MerchantMemory | null,
  token: string | undefined,
): VariantPin | undefined {
  if (fixed !== undefined) return { variant: fixed, seq: 0 };
  if (merchant !== null) return memory.keyVariants.get(merchant.id);
  return token === undefined ? undefined : memory.tokens.get(token)?.variant;
}

/** The variants an answer to this caller may be judged by: its pinned one, or both while not known; those whose contract has the operation. */
export function candidates(pin: VariantPin | undefined, contracts: ReadonlyMap<Variant, Contract>, opId: string): Variant[] {
  return (pin ? [pin.variant] : VARIANTS).filter((v) => contracts.get(v)?.has(opId));
}

/** The first violation of the answer in one variant's contract, or null when it accepts it (a cut answer: its status only). */
function violation(contract: Contract, s: Seen, accepted: AcceptedAnswers): ConformanceError | null {
  if (s.truncated) {
    if (contract.response(s.opId, s.status) !== null) return null;
    return new ConformanceError(s.opId, '$', `answered ${s.status}, a status not declared for ${s.opId}`);
  }
  // what the answer judge reads of the exchange (no copy of the whole exchange)
  const { method, url, status, responseHeaders, responseText } = s.ex;
  return answerViolation(contract, { opId: s.opId, method, url, status, responseHeaders, responseText, json: s.json }, accepted);
}

const asFinding = (e: ConformanceError, s: Seen, kind: 'answer' | 'variant', message = e.message) =>
  finding({ kind, at: s, jsonPath: e.jsonPath, message, expected: e.expected, actual: e.actual });

/**
 * The answer against the variants it may be judged by; a key's first success answer only one
 * accepts pins the key (ADR-070); a pinned key answering in the other variant's shape is a finding.
 * @judges ADR-070
 */
export function judgeAnswer(s: Seen, j: Judging, accepted: AcceptedAnswers): void {
  const { contracts, fixedVariant } = j.settings;
  const results = s.variants.map((v) => ({ v, err: violation(contracts.get(v)!, s, accepted) }));
  const ok = results.filter((x) => x.err === null);
  if (s.pin !== undefined && !ok.length && fixedVariant === undefined) {
    // pinned: an answer the other variant's contract accepts is an answer in the other variant's shape
    const other: Variant = s.pin.variant === 1 ? 2 : 1;
    const c = contracts.get(other);
    if (c?.has(s.opId) && s.status < 300 && violation(c, s, accepted) === null) {
      const first = results[0]!.err!;
      j.out.push(
        asFinding(
          first,
          s,
          'variant',
          `${s.opId} answered ${s.status} in Variant ${other}'s shape; this key speaks Variant ${s.pin.variant} (exchange ${s.pin.seq} showed it), and a variant is pinned per API key: ${first.message}`,
        ),
      );
      return;
    }
  }
  // an operation one variant alone has (A3), called by a key whose variant is not known: any answer is valid in the other
  if (!ok.length && s.pin === undefined && fixedVariant === undefined && results.length === 1) return;
  if (!ok.length) {
    const first = results[0]!.err!;
    const message =
      results.length > 1
        ? `valid in neither variant (the key's variant not known yet): Variant ${results[0]!.v}: ${first.message}; Variant ${results[1]!.v}: ${results[1]!.err!.message}`
        : first.message;
    j.out.push(asFinding(first, s, 'answer', message));
    return;
  }
  // a success answer one variant's contract alone accepts (or to an operation one variant alone has, A3) tells them apart
  if (s.pin === undefined && s.status >= 200 && s.status < 300 && !s.truncated && ok.length === 1) {
    s.pin = { variant: ok[0]!.v, seq: s.seq };
    pin(j.memory, s);
  }
}

/** Pins the caller of `s` to `s.pin` (its key, or its session token). */
function pin(memory: JudgeMemory, s: Seen): void {
  if (s.merchant !== null) {
    if (!memory.keyVariants.has(s.merchant.id)) memory.pinned[s.pin!.variant]++;
    remember(memory.keyVariants, s.merchant.id, s.pin!, memory.max);
  } else if (s.token !== undefined) {
    const t = memory.tokens.get(s.token);
    if (t) t.variant = s.pin;
  }
}

/** A session token an A1 answer gave: its calls speak the key's variant. */
export function pinToken(s: Seen, j: Judging): void {
  if (s.pin === undefined || j.settings.fixedVariant !== undefined || s.merchant === null || s.status >= 300 || !isRecord(s.json)) return;
  const t = s.json.token ?? s.json.session_token;
  if (typeof t === 'string') tokenOf(j, t, s.merchant.id, s.seq).variant = s.pin;
}
