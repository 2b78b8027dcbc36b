/**
 * The copies of the amount range (`x-amount-range`, ADR-006): a schema's `minimum`/`maximum` beside
 * it, the out-of-range error examples, and the sandbox scenarios' amounts (ADR-043), derived from
 * it (ADR-086).
 */
import { centimesOf, centimesToNumber, formatCentimes } from '../../lib/money.ts';
import { amountRange, amountRangeUses, errorCatalog, operations, stateMachine, type AmountRange } from './contract-facts.ts';
import { attempt, child, copyAt, errorExamples, esc, unesc, type CopyCheck, type FactCopy } from './fact-copy.ts';
import { isJson, textOf, type Json } from '../../lib/json.ts';

export function amountRangeCopies(variant: number, doc: Json): CopyCheck {
  const problems: string[] = [];
  const copies: FactCopy[] = [];
  const range = attempt(problems, `Variant ${variant} x-amount-range`, () => amountRange(doc));
  if (!range) return { copies, problems };
  const catalog = errorCatalog(doc);
  const currencies = (((doc.components as Json).schemas as Json).Currency as Json | undefined)?.enum as unknown[] | undefined;
  if (currencies && !currencies.includes(range.currency))
    problems.push(
      `Variant ${variant} x-amount-range: currency ${range.currency} is not one of the Currency enum [${currencies.join(', ')}]`,
    );
  const codes = new Map<string, string>(); // out-of-range code → property
  for (const use of amountRangeUses(doc)) {
    const where = `Variant ${variant} ${use.pointer}`;
    const s = use.schema;
    for (const key of ['minimum', 'maximum'] as const) {
      if (s[key] !== undefined)
        copyAt(
          copies,
          variant,
          doc,
          `${use.pointer}/${key}`,
          range[key],
          (v) => `${key} ${textOf(v)} differs from x-amount-range ${key} ${range[key]}`,
        );
    }
    if (typeof s.pattern === 'string') {
      const re = new RegExp(s.pattern, 'u');
      for (const c of [centimesOf(range.minimum)! - 1, centimesOf(range.maximum)! + 1]) {
        if (c >= 0 && !re.test(formatCentimes(c)))
          problems.push(
            `${where}: pattern refuses ${formatCentimes(c)}, so it encodes the amount range again (let it check only the decimal form)`,
          );
      }
    }
    const business = s['x-business-rule'] as Json | undefined;
    const code = business ? business.code : s['x-error-code'];
    if (typeof code !== 'string' || !catalog[code]) {
      problems.push(`${where}: x-amount-range needs an x-error-code or an x-business-rule code from the catalogue`);
      continue;
    }
    if (business && business.status !== catalog[code].status)
      problems.push(`${where}: x-business-rule status ${String(business.status)} differs from ${code}'s ${catalog[code].status}`);
    const segments = use.pointer.split('/');
    if (segments.at(-2) !== 'properties') problems.push(`${where}: x-amount-range belongs on an object property`);
    else if (business) codes.set(code, unesc(segments.at(-1)!));
    else if (!codes.has(code)) codes.set(code, unesc(segments.at(-1)!));
  }
  // an example of an out-of-range code shows exactly the server's answer: `<property> <rule>`, detail `<rule>`
  for (const ex of errorExamples(doc)) {
    const property = codes.get(ex.error.code as string);
    if (property === undefined) continue;
    const message = `${property} ${range.rule}`;
    copyAt(
      copies,
      variant,
      doc,
      `${ex.pointer}/value/error/message`,
      message,
      (v) => `message "${String(v)}" differs from the amount range's "${message}"`,
    );
    ((ex.error.details as Json[] | undefined) ?? []).forEach((d, i) => {
      if (d.path === `/${property}`)
        copyAt(
          copies,
          variant,
          doc,
          `${ex.pointer}/value/error/details/${i}/message`,
          range.rule,
          (v) => `detail "${String(v)}" differs from the amount range's "${range.rule}"`,
        );
    });
  }
  const scenarios = scenarioCopies(variant, doc, range, codes);
  return { copies: [...copies, ...scenarios.copies], problems: [...problems, ...scenarios.problems] };
}

/**
 * The sandbox scenarios' amounts (`x-sandbox-scenarios`, ADR-043): the one answered by the amount
 * range's business code is its edge, the smallest amount above the range (maximum + 0.01); every
 * other magic total lies inside the range (else the range would answer it), the k-th (k from 1)
 * written back as minimum + 1 + k × 0.01 when it does not. A magic phone acts before the payment
 * window ends (else the transaction expires first).
 */
function scenarioCopies(variant: number, doc: Json, range: AmountRange, codes: Map<string, string>): CopyCheck {
  const copies: FactCopy[] = [];
  const problems: string[] = [];
  const [min, max] = [centimesOf(range.minimum)!, centimesOf(range.maximum)!];
  const window = (stateMachine(doc).paymentWindow as Json | undefined)?.defaultSeconds as number | undefined;
  for (const [opId, op] of Object.entries(operations(doc))) {
    const at = child(doc, `#/paths/${esc(op.path)}`, op.method.toLowerCase(), 'x-sandbox-scenarios');
    if (!at || !isJson(at.node)) continue;
    const where = `Variant ${variant} ${opId} x-sandbox-scenarios`;
    let inside = 0;
    ((at.node.amounts ?? []) as Json[]).forEach((a, i) => {
      const pointer = `${at.pointer}/amounts/${i}/total`;
      const c = centimesOf(a.total);
      if (codes.has(String(a.code)) && catalogStatus(doc, String(a.code)) === 422) {
        const edge = centimesToNumber(max + 1);
        copyAt(
          copies,
          variant,
          doc,
          pointer,
          edge,
          (v) => `total ${textOf(v)} (${String(a.code)}) is not the amount range's edge ${formatCentimes(max + 1)} (its maximum + 0.01)`,
        );
        return;
      }
      inside++;
      const within = c !== null && c >= min && c <= max;
      const expected = within ? a.total : centimesToNumber(min + 100 + inside);
      if (!within && min + 100 + inside > max)
        problems.push(
          `${where}: the amount range ${range.rule.replace(/^must be /, '')} leaves no room for magic total ${textOf(a.total)}`,
        );
      else
        copyAt(
          copies,
          variant,
          doc,
          pointer,
          expected,
          (v) => `magic total ${textOf(v)} (${String(a.code)}) lies outside the amount range (${range.rule})`,
        );
    });
    for (const p of (at.node.customerPhones ?? []) as Json[]) {
      if (typeof p.afterSeconds === 'number' && window !== undefined && p.afterSeconds >= window)
        problems.push(
          `${where}: magic phone ${String(p.customerPhone)} acts after ${p.afterSeconds} s, not before the ${window} s payment window ends`,
        );
    }
  }
  return { copies, problems };
}

function catalogStatus(doc: Json, code: string): number | undefined {
  return errorCatalog(doc)[code]?.status;
}
