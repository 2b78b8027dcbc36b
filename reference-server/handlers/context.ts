/** What a handler receives and returns. */
import type { Variant } from '../../generated/index.ts';
import type { MerchantConfig } from '../config.ts';
import type { Core } from '../core.ts';
import type { SessionRecord } from '../domain/types.ts';
import type { OperationInfo } from '../http/operations.ts';

/** The request as a handler sees it: the matched operation, the caller, the validated input. */
export interface Ctx {
  op: OperationInfo;
  /** The bundled document of the caller's variant. */
  doc: Record<string, unknown>;
  variant: Variant;
  merchant: MerchantConfig;
  /** The session of a session-token operation, null for API-key operations. */
  session: SessionRecord | null;
  params: Record<string, string>;
  /** The validated query parameters (declared ones only: others are refused, ADR-022). */
  query: Record<string, unknown>;
  body: unknown;
  /** The server's public base URL, for absolute links. */
  baseUrl: string;
}

export interface Result {
  status: number;
  body: unknown;
  /** A streamed answer (`text/event-stream`): the router hands it the response instead of sending `body` as JSON. */
  stream?: (req: import('express').Request, res: import('express').Response) => void;
}

export type Handler = (core: Core, ctx: Ctx) => Promise<Result>;
