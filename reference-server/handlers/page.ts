/**
 * One page of a sandbox list (ADR-028): at most `limit` items (the `limit` parameter's
 * `default` and `maximum` in the spec), from after the item the `cursor` names; `nextCursor`
 * names the page's last item, or is null on the last page.
 */
import { loadBundledDocument } from '../../generated/index.ts';
import { ApiError } from '../http/errors.ts';

const limitSchema: { default?: unknown; maximum?: unknown } =
  (loadBundledDocument(1).components as { parameters?: Record<string, { schema?: { default?: unknown; maximum?: unknown } }> }).parameters
    ?.limit?.schema ?? {};
if (typeof limitSchema.default !== 'number' || typeof limitSchema.maximum !== 'number')
  throw new Error('spec: the limit parameter has no default or maximum');
/** The spec's page size when `limit` is not given, and the largest accepted. */
export const PAGE_LIMIT = { default: limitSchema.default, maximum: limitSchema.maximum };

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/**
 * The page of `items` (in list order) that `query` asks for; 400 for a cursor naming no item.
 * @rule ADR-028
 */
export function pageOf<T>(items: readonly T[], idOf: (item: T) => string, query: Record<string, unknown>): Page<T> {
  const limit = query.limit === undefined ? PAGE_LIMIT.default : Math.min(Number(query.limit), PAGE_LIMIT.maximum);
  let start = 0;
  if (query.cursor !== undefined) {
    const id = Buffer.from(typeof query.cursor === 'string' ? query.cursor : '', 'base64url').toString('utf8');
    const at = items.findIndex((x) => idOf(x) === id);
    if (at < 0)
      throw new ApiError('VALIDATION_ERROR', 'query.cursor is not a cursor of this list', [
        { path: 'query.cursor', message: 'is not a cursor of this list' },
      ]);
    start = at + 1;
  }
  const data = items.slice(start, start + limit);
  const last = data[data.length - 1];
  return {
    data,
    nextCursor: start + limit < items.length && last !== undefined ? Buffer.from(idOf(last), 'utf8').toString('base64url') : null,
  };
}
