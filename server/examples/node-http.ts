/**
 * The contract without express (docs/implementers.md, "Without express"): a `node:http` server
 * that matches with the route table, checks each request and each response with the compiled
 * validators, and answers in the contract's error shape. Run by server/examples/node-http.test.ts.
 */
import { createServer, type Server } from 'node:http';
import { ApiError, routeTable, sendError, validateRequest, validateResponse } from '../index.ts';

/** Your code: an answer `{ status, body }` for a matched operation (here, two of them). */
type Handle = (operationId: string, params: Record<string, string>, body: unknown) => { status: number; body: unknown };

export function contractServer(handle: Handle): Server {
  const routes = routeTable(1);
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const match = routes.match(req.method ?? 'GET', url.pathname);
    if (!match) {
      const allow = routes.allowedAt(url.pathname);
      return sendError(res, allow.length ? methodNotAllowed(req.method, allow) : new ApiError('ROUTE_NOT_FOUND', 'No such operation'));
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        return sendError(res, new ApiError('VALIDATION_ERROR', 'Request body is not valid JSON'));
      }
      const query: Record<string, string> = Object.fromEntries(url.searchParams);
      const id = match.entry.operationId;
      const refusal = validateRequest(1, id, { params: match.params, query, headers: req.headers, body });
      if (refusal) return sendError(res, refusal);
      const answer = handle(id, match.params, body);
      const broken = validateResponse(1, id, answer.status, answer.body);
      if (broken) return sendError(res, new ApiError('INTERNAL_ERROR', `response breaks the contract: ${broken.message}`));
      res.writeHead(answer.status, { 'Content-Type': 'application/json' }).end(JSON.stringify(answer.body));
    });
  });
}

function methodNotAllowed(method: string | undefined, allow: string[]): ApiError {
  return new ApiError('METHOD_NOT_ALLOWED', `${method} is not allowed; use ${allow.join(', ')}`, undefined, { Allow: allow.join(', ') });
}
