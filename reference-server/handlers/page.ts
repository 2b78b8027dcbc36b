/**
 * One page of a sandbox list (ADR-028): at most `limit` items (the `limit` parameter's
 * `default` and `maximum` in the spec), from after the item the `cursor` names; `nextCursor`
 * names the page's last item, or is null on the last page. Read from the repository's pages.
 */
import { specFact } from '../../lib/spec-fact.ts';
import { ApiError } from '../http/errors.ts';
import type { Page as StorePage } from '../store/repository.ts';

/** The spec's page size when `limit` is not given, and the largest accepted. */
export const PAGE_LIMIT = {
  default: specFact('#/components/parameters/limit/schema/default', 'number'),
  maximum: specFact('#/components/parameters/limit/schema/maximum', 'number'),
};

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

/** The `limit` that `query` asks for (the spec's default when absent). */
function limitOf(query: Record<string, unknown>): number {
  return query.limit === undefined ? PAGE_LIMIT.default : Math.min(Number(query.limit), PAGE_LIMIT.maximum);
}

/**
 * The page `query` asks for, read with `read` (a repository page read; its cursor is the id of
 * the previous page's last item); 400 for a cursor for which `known` finds no item of the list.
 * @rule ADR-028
 */
export async function readPage<T>(
  query: Record<string, unknown>,
  read: (limit: number, cursor: string | null) => Promise<StorePage<T>>,
  known: (id: string) => Promise<boolean>,
): Promise<Page<T>> {
  let cursor: string | null = null;
  if (query.cursor !== undefined) {
    cursor = Buffer.from(typeof query.cursor === 'string' ? query.cursor : '', 'base64url').toString('utf8');
    if (!(await known(cursor)))
      throw new ApiError('VALIDATION_ERROR', 'query.cursor is not a cursor of this list', [
        { path: 'query.cursor', message: 'is not a cursor of this list' },
      ]);
  }
  const page = await read(limitOf(query), cursor);
  return { data: page.items, nextCursor: page.next === null ? null : Buffer.from(page.next, 'utf8').toString('base64url') };
}
