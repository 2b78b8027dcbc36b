/**
 * An answer judged by the conformance suite's own response judge (`judgeResponse` of
 * conformance/http.ts), with the answers it accepted remembered exactly: polling traffic reads the
 * same record again and again, and an answer identical in everything the judge reads gets the same
 * verdict without running the compiled schema (its formats, date-times above all, are most of it).
 *
 * The key holds every input of the verdict: the contract (one memo per variant), the operation, the
 * status, the Content-Type header as sent, the value of each header the contract declares for that
 * status (absent told apart from empty), and the answer's text (the JSON judged is always parsed from
 * that text, forward.ts). Only acceptances are kept (a violation is judged again, so its message names
 * its own exchange); an answer longer than MEMO_MAX_TEXT characters is not kept; at most
 * MEMO_MAX_KEYS per variant, then started afresh.
 */
import { ConformanceError, judgeResponse, type Exchange, type Judge } from '../conformance/http.ts';
import type { Contract } from '../conformance/spec.ts';

export const MEMO_MAX_TEXT = 4096;
export const MEMO_MAX_KEYS = 1000;

/** Collects what the suite's judge finds instead of throwing on it (the first violation of an exchange is kept). */
class Collect implements Judge {
  checks = 0;
  check(ok: boolean, operation: string, jsonPath: string, message: string, expected?: unknown, actual?: unknown): void {
    this.checks++;
    if (!ok) throw new ConformanceError(operation, jsonPath, message, expected, actual);
  }
}
const COLLECT = new Collect();

export class AnswerJudge {
  private readonly accepted = new Map<Contract, Set<string>>();
  /** Answers whose verdict came from the memo. */
  hits = 0;

  /** The first violation of a whole answer in one variant's contract, or null when it accepts the answer. */
  violation(contract: Contract, ex: Exchange): ConformanceError | null {
    const key = keyOf(contract, ex);
    const seen = key === null ? undefined : this.accepted.get(contract);
    if (key !== null && seen?.has(key)) {
      this.hits++;
      return null;
    }
    try {
      judgeResponse(contract, ex, COLLECT);
    } catch (err) {
      if (!(err instanceof ConformanceError)) throw err;
      return err;
    }
    if (key !== null) {
      let set = seen;
      if (!set) this.accepted.set(contract, (set = new Set()));
      if (set.size >= MEMO_MAX_KEYS) set.clear();
      set.add(key);
    }
    return null;
  }
}

/** Everything `judgeResponse` reads for its verdict, as one string; null: not remembered. */
function keyOf(contract: Contract, ex: Exchange): string | null {
  if (ex.responseText.length > MEMO_MAX_TEXT) return null;
  const spec = contract.response(ex.opId, ex.status);
  if (spec === null) return null;
  // header values hold no newline or NUL (RFC 9110 §5.5): NUL marks an absent header
  let key = `${ex.opId}\n${ex.status}\n${ex.responseHeaders['content-type'] ?? '\0'}`;
  for (const h of spec.headers) key += `\n${ex.responseHeaders[h.name.toLowerCase()] ?? '\0'}`;
  return `${key}\n${ex.responseText}`;
}
