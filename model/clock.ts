/**
 * The sandbox clock's offset as an answer shows it (ADR-020, ADR-085): `offsetMilliseconds` exact,
 * `offsetSeconds` its whole seconds rounded down, both the offset the merchant's advances made.
 */

/** What a clock answer's offset contradicts, or null: `expectedMs`, the offset the advances made (undefined: not known). */
export function clockOffsetProblem(
  answer: { offsetSeconds: unknown; offsetMilliseconds: unknown },
  expectedMs: number | undefined,
): { path: '$.offsetMilliseconds' | '$.offsetSeconds'; expected: number; actual: unknown } | null {
  const ms = answer.offsetMilliseconds;
  if (expectedMs !== undefined && ms !== expectedMs) return { path: '$.offsetMilliseconds', expected: expectedMs, actual: ms };
  if (typeof ms === 'number' && answer.offsetSeconds !== Math.floor(ms / 1000))
    return { path: '$.offsetSeconds', expected: Math.floor(ms / 1000), actual: answer.offsetSeconds };
  return null;
}

/** A clock answer's offset in milliseconds: `offsetMilliseconds`, or `offsetSeconds` from a clock that gives only those; undefined when it shows neither. */
export function clockOffsetMs(answer: { offsetSeconds?: unknown; offsetMilliseconds?: unknown }): number | undefined {
  if (typeof answer.offsetMilliseconds === 'number') return answer.offsetMilliseconds;
  return typeof answer.offsetSeconds === 'number' ? answer.offsetSeconds * 1000 : undefined;
}
