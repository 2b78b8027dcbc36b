/** The shared SQL reads (`../sql-reads.ts`) on PostgreSQL, as named (prepared) statements. */
import { createHash } from 'node:crypto';
import { SqlReads, type Row } from '../sql-reads.ts';
import { TABLES } from './pg-rows.ts';

export type { Row };

const names = new Map<string, string>();
/**
 * `text` as a named (prepared) statement: each connection parses and plans it once, not at every
 * call. The texts are fixed (values are parameters), so the names are few.
 */
export function prepared(text: string, values: unknown[] = []): { name: string; text: string; values: unknown[] } {
  let name = names.get(text);
  if (name === undefined) names.set(text, (name = `paylater_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`));
  return { name, text, values };
}

export abstract class PgReads extends SqlReads {
  protected readonly tables = TABLES;
}
