/**
 * The exchange ring's entries (report.ts keeps the last `keep` exchanges for findings' curl scripts
 * and the HAR file): each body cut, no parsed answer held.
 */
import { cut } from '../judge/ear-report.ts';
import type { NamedExchange as Exchange } from '../judge/exchange.ts';

/** The most of each body the exchange ring keeps by default (the ring's memory: at most `keep` × 2 × this). */
export const RING_BODY_CHARS = 16 * 1024;

/**
 * An exchange as the ring keeps it: each body cut at `limit` characters, and never its parsed JSON
 * (the curl script parses the answer's text again). The ring holds the last `keep`
 * exchanges, long enough for V8 to move each into its old generation: a parsed answer is dozens of
 * objects to copy, promote and mark per exchange, where its text is one string.
 */
export function slim(ex: Exchange, limit = RING_BODY_CHARS): Exchange {
  const longBody = ex.body !== undefined && ex.body.length > limit;
  const longAnswer = ex.responseText.length > limit;
  return {
    ...ex,
    body: longBody ? cut(ex.body!, limit) : ex.body,
    responseText: longAnswer ? cut(ex.responseText, limit) : ex.responseText,
    json: undefined,
  };
}
