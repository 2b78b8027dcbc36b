/**
 * The operations of a variant as the reference server's handlers see them: the contract's
 * operation table (generated/v<n>/server.ts) with the request body schema, the variant, and
 * how the security scheme authenticates (a merchant's key or a session token).
 */
import type { Variant } from '../../generated/index.ts';
import { operationTables, type OperationEntry } from '../../server/index.ts';
import { requestSchemaOf } from '../../server/schema.ts';

export { nearestExtension, resolveRef } from '../../server/schema.ts';

type Json = Record<string, unknown>;

export type AuthKind = 'apiKey' | 'sessionToken';

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

export interface OperationInfo extends Omit<OperationEntry, 'auth'> {
  /** The variant whose document declares it. */
  variant: Variant;
  /** `header` in lower case (for matching); `title` as the contract spells it, for messages. */
  auth: { scheme: string; header: string; title: string; kind: AuthKind } | null;
  /** The request body schema (may be a $ref). */
  requestSchema: Json | null;
}

export function buildOperations(doc: Json, variant: Variant): OperationInfo[] {
  return Object.values(operationTables[variant]).map((e) => {
    const header = e.auth?.header.toLowerCase();
    return {
      ...e,
      variant,
      // A scheme whose header carries the session token authenticates the session; the others the merchant key.
      auth: e.auth && {
        scheme: e.auth.scheme,
        header: header!,
        title: e.auth.header,
        kind: header === 'x-session-token' ? 'sessionToken' : 'apiKey',
      },
      requestSchema: requestSchemaOf(doc, e.method, e.path),
    };
  });
}
