/**
 * The bodies of the page forms beside the API (the demo shop's checkout, the dashboard's go-live
 * run): express's own parsers with a byte limit and a field limit, their refusals answered in the
 * one error shape (ADR-001) with the declared codes, never as a 500:
 * - more bytes than the limit: 413 `PAYLOAD_TOO_LARGE` ("Request body exceeds {kB} kB");
 * - more fields than the limit, a body that does not parse, an unsupported charset or content
 *   encoding, a request cut short: 400 `VALIDATION_ERROR`, naming what is wrong. Too many fields
 *   is a 400 and not the parser's 413: the body is within the byte limit that PAYLOAD_TOO_LARGE
 *   states, and it is the form's rule that it breaks, as a JSON body with members the schema
 *   does not allow is a 400 on the API.
 * Nothing is read or stored for a refused request: the route's handler never runs.
 */
import express, { type RequestHandler } from 'express';
import { errorMessage } from '../../lib/error-messages.ts';
import { ApiError } from '../../server/errors.ts';

/** The `type` of a refusal of express's body parsers (body-parser / raw-body), or null for any other error. */
function parserErrorType(err: unknown): string | null {
  const e = err as { type?: unknown; status?: unknown } | null;
  return e && typeof e.type === 'string' && typeof e.status === 'number' && e.status >= 400 && e.status < 500 ? e.type : null;
}

/**
 * The declared answer to a refusal of express's body parsers, or null when `err` is not one
 * (the last error handler uses it too, for a parser used without `pageForm` / `pageJson`).
 * `maxFields` is the parser's field limit, when known; the byte limit is the parser's own (`limit`).
 */
export function bodyParserRefusal(err: unknown, limits: { maxFields?: number } = {}): ApiError | null {
  const type = parserErrorType(err);
  if (type === null) return null;
  const why = (message: string) => new ApiError('VALIDATION_ERROR', message, [{ path: '/', message }]);
  switch (type) {
    case 'entity.too.large': // raw-body always gives the limit it was set
      return new ApiError(
        'PAYLOAD_TOO_LARGE',
        errorMessage('PAYLOAD_TOO_LARGE', { kB: Number((err as { limit?: unknown }).limit) / 1024 }),
      );
    case 'parameters.too.many':
      return why(`Request body has more than ${limits.maxFields ?? 'the allowed number of'} fields`);
    case 'entity.parse.failed':
      return why('Request body could not be parsed');
    case 'charset.unsupported':
    case 'encoding.unsupported':
      return why(`Request body: ${(err as Error).message}`);
    default:
      return why('Request body could not be read');
  }
}

/** Runs `parser`, answering its refusals as `bodyParserRefusal` does. */
function refusing(parser: RequestHandler, limits: { maxFields?: number }): RequestHandler {
  return (req, res, next) =>
    void parser(req, res, (err?: unknown) => {
      if (err === undefined || err === null) return next();
      next(bodyParserRefusal(err, limits) ?? err);
    });
}

/** An `application/x-www-form-urlencoded` page form of at most `limitBytes` bytes and `maxFields` fields. */
export function pageForm(limits: { limitBytes: number; maxFields: number }): RequestHandler {
  const parser = express.urlencoded({ extended: false, limit: limits.limitBytes, parameterLimit: limits.maxFields });
  return refusing(parser, { maxFields: limits.maxFields });
}

/** A JSON body of a page's script, of at most `limitBytes` bytes. */
export function pageJson(limits: { limitBytes: number }): RequestHandler {
  return refusing(express.json({ limit: limits.limitBytes }), {});
}
