/**
 * Reading a JSON request body safely: `x-max-body-bytes` limit (413), `application/json` only (415),
 * malformed JSON, nesting deeper than 32, an object naming a member twice (ADR-023) and
 * `__proto__`/`constructor`/`prototype` keys (400 VALIDATION_ERROR). Runs before the OpenAPI validator.
 */
import { errorMessage } from '../lib/error-messages.ts';
import { maxBodyBytes } from '../generated/contract.ts';
import type { IncomingMessage } from 'node:http';
import { ApiError, payloadTooLarge } from './errors.ts';

/** From the spec (`x-max-body-bytes` of `PayloadTooLarge`). */
export const BODY_LIMIT_BYTES = maxBodyBytes;
export const MAX_DEPTH = 32;
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Stateless when not streaming: one decoder serves every request. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

function readRaw(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > limit) {
      req.resume();
      reject(payloadTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (c: Buffer) => {
      if (done) return;
      size += c.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        reject(payloadTooLarge());
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!done) {
        done = true;
        resolve(Buffer.concat(chunks));
      }
    });
    req.on('error', (e) => {
      if (!done) {
        done = true;
        reject(new ApiError('VALIDATION_ERROR', `Request body could not be read: ${e.message}`));
      }
    });
  });
}

interface ObjectFrame {
  keys: Set<string> | null;
  key: string;
  expectKey: boolean;
}
type Frame = ObjectFrame | { index: number };

/** What one pass over a JSON text finds: its nesting depth, the first member named twice, the first forbidden member. */
export interface JsonScan {
  depth: number;
  /** The JSON Pointer of the first member named twice in one object, or null. */
  duplicate: string | null;
  /** The first member named `__proto__`, `constructor` or `prototype`, or null. */
  forbidden: string | null;
}

/**
 * One pass over `text` without parsing it (strings skipped). Names are compared decoded (`"a"`
 * and `"\u0061"` are the same member). Meaningful for valid JSON: the caller parses too.
 */
export function scanJson(text: string): JsonScan {
  const stack: Frame[] = [];
  let depth = 0;
  let duplicate: string | null = null;
  let forbidden: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 123 || ch === 91) {
      stack.push(ch === 123 ? { keys: null, key: '', expectKey: true } : { index: 0 });
      if (stack.length > depth) depth = stack.length;
    } else if (ch === 125 || ch === 93) stack.pop();
    else if (ch === 44) {
      const top = stack[stack.length - 1];
      if (top && 'index' in top) top.index++;
      else if (top) top.expectKey = true;
    } else if (ch === 34) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 92) {
          escaped = true;
          i++;
        } else if (c === 34) break;
      }
      const top = stack[stack.length - 1];
      if (!top || 'index' in top || !top.expectKey) continue;
      const name = escaped ? decodedName(text.slice(start, i + 1)) : text.slice(start + 1, i);
      top.expectKey = false;
      top.key = name;
      if (forbidden === null && FORBIDDEN_KEYS.has(name)) forbidden = name;
      top.keys ??= new Set();
      if (duplicate === null && top.keys.has(name))
        duplicate = `/${stack.map((f) => ('index' in f ? String(f.index) : f.key.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/')}`;
      top.keys.add(name);
    }
  }
  return { depth, duplicate, forbidden };
}

/** A quoted member name with escapes, decoded (as written when the text is not valid JSON). */
function decodedName(quoted: string): string {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return quoted;
  }
}

/** The JSON Pointer of the first member named twice in one object of `text` (valid JSON), or null. */
export function duplicateMemberPath(text: string): string | null {
  return scanJson(text).duplicate;
}

function isJsonMediaType(ct: string | undefined): boolean {
  if (!ct) return false;
  const [type, ...params] = ct.split(';').map((s) => s.trim().toLowerCase());
  if (type !== 'application/json') return false;
  for (const p of params) {
    const [k, v] = p.split('=').map((s) => s.trim());
    if (k === 'charset' && v !== 'utf-8' && v !== 'utf8' && v !== '"utf-8"') return false;
  }
  return true;
}

/**
 * Reads and parses the JSON body of a request whose operation declares one. A member named twice
 * answers 400 here (ADR-023); the safe-integer bound of `CategoryId` is the schema's `maximum`,
 * applied by the validator like any other bound.
 * @rule ADR-023
 */
export async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const raw = await readRaw(req, BODY_LIMIT_BYTES);
  if (raw.length === 0) {
    throw new ApiError('VALIDATION_ERROR', 'Request body is required', [{ path: '/', message: 'request body is required' }]);
  }
  if (!isJsonMediaType(req.headers['content-type'])) {
    throw new ApiError('UNSUPPORTED_MEDIA_TYPE', errorMessage('UNSUPPORTED_MEDIA_TYPE'));
  }
  let text: string;
  try {
    text = UTF8.decode(raw);
  } catch {
    throw new ApiError('VALIDATION_ERROR', 'Request body is not valid UTF-8');
  }
  const scan = scanJson(text);
  if (scan.depth > MAX_DEPTH) {
    throw new ApiError('VALIDATION_ERROR', `Request body is nested deeper than ${MAX_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError('VALIDATION_ERROR', 'Request body is not valid JSON');
  }
  if (scan.duplicate !== null) {
    const duplicate = scan.duplicate;
    const name = duplicate
      .slice(duplicate.lastIndexOf('/') + 1)
      .replace(/~1/g, '/')
      .replace(/~0/g, '~');
    throw new ApiError('VALIDATION_ERROR', `Request body names the member "${name}" twice`, [
      { path: duplicate, message: 'is named twice' },
    ]);
  }
  if (scan.forbidden !== null) {
    throw new ApiError('VALIDATION_ERROR', `Request body must not contain the key "${scan.forbidden}"`, [
      { path: `/${scan.forbidden}`, message: 'forbidden key' },
    ]);
  }
  return value;
}
