/**
 * Injected faults of the request schemas' boundaries, one keyword each: parameters (`limit`,
 * `cursor`, path ids) and the sandbox's own bodies, their bounds read from the bundled document.
 */
import { loadBundledDocument } from '../../generated/index.ts';
import { objectAt, valueAt, type Json } from '../../lib/json.ts';
import { B1, B2, GET, merchantKey } from './match.ts';
import { json, withJson, type Mutant, type ProxyContext, type ProxyRequest, type ProxyResponse } from './proxy.ts';

const BUNDLED = loadBundledDocument(1);
/** The paths of the paged lists (ADR-028): the GET operations of the bundled document that take `limit`. */
const LIST_PATHS = new Set(
  Object.entries(objectAt(BUNDLED, 'paths'))
    .filter(([, item]) =>
      (((valueAt(item, 'get') as Json | undefined)?.parameters as Json[] | undefined) ?? []).some(
        (p) => p.name === 'limit' || p.$ref === '#/components/parameters/limit',
      ),
    )
    .map(([path]) => path),
);
const LISTS = { test: (path: string): boolean => LIST_PATHS.has(new URL(path, 'http://proxy').pathname) };
const LIMIT_MAX = Number(valueAt(BUNDLED, 'components', 'parameters', 'limit', 'schema', 'maximum'));
const OVERLAP = {
  min: Number(valueAt(BUNDLED, 'components', 'schemas', 'WebhookSecretRotationRequest', 'properties', 'overlapSeconds', 'minimum')),
  max: Number(valueAt(BUNDLED, 'components', 'schemas', 'WebhookSecretRotationRequest', 'properties', 'overlapSeconds', 'maximum')),
};
/** A 200 with the merchant's webhook endpoint as the server reads it (unchanged), as if a change were accepted. */
async function endpointAnswer(req: ProxyRequest, res: ProxyResponse, ctx: ProxyContext): Promise<ProxyResponse> {
  const got = await ctx.forward({
    method: 'GET',
    path: '/api/v1/sandbox/webhook-endpoint',
    headers: { 'x-api-key': merchantKey(req, ctx) },
    body: '',
  });
  return withJson(res, json(got), 200);
}
/** A request body's JSON object, or undefined. */
export function parsed(body: string): Json | undefined {
  try {
    const v = JSON.parse(body) as unknown;
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
  } catch {
    return undefined;
  }
}

export const boundsMutants: Mutant[] = [
  {
    name: 'limit above its maximum accepted (a page instead of 400)',
    profile: 'sandbox',
    async onResponse(req, res) {
      const limit = new URL(req.path, 'http://x').searchParams.get('limit');
      if (!LISTS.test(req.path) || res.status !== 400 || limit === null || !(Number(limit) > LIMIT_MAX)) return res;
      return withJson(res, { data: [], nextCursor: null }, 200);
    },
  },
  {
    name: 'a bad query parameter refused without naming it in the details',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!LISTS.test(req.path) || res.status !== 400) return res;
      const error = json(res).error as Json & { details?: Json[] };
      return withJson(res, { error: { ...error, details: (error.details ?? []).map((d) => ({ ...d, path: 'query' })) } });
    },
  },
  {
    name: 'a 1-character vendorReference refused with 400 (B1)',
    profile: 'core',
    async onRequest(req, ctx) {
      if (!B1.test(req.path) || req.method !== 'POST') return undefined;
      const body = parsed(req.body);
      if (typeof body?.vendorReference !== 'string' || [...body.vendorReference].length !== 1) return undefined;
      // the server's own 400 for a reference it refuses
      return ctx.forward({ ...req, body: JSON.stringify({ ...body, vendorReference: '-' }) });
    },
  },
  {
    name: 'an unknown transactionId that is not a version-4 UUID refused with 400 (B2)',
    profile: 'core',
    async onResponse(req, res) {
      const id = B2.exec(req.path)?.[1];
      if (!id || !GET(req) || res.status !== 404 || id[14] === '4') return res;
      return withJson(
        res,
        {
          error: {
            code: 'VALIDATION_ERROR',
            message: 'path.transactionId must be a UUID v4',
            details: [{ path: 'path.transactionId', message: 'must be a UUID v4' }],
          },
        },
        400,
      );
    },
  },
  {
    name: 'overlapSeconds out of range accepted (secret rotation)',
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      const s = parsed(req.body)?.overlapSeconds;
      if (
        !req.path.endsWith('/webhook-endpoint/rotate-secret') ||
        res.status !== 400 ||
        typeof s !== 'number' ||
        (s >= OVERLAP.min && s <= OVERLAP.max)
      )
        return res;
      return endpointAnswer(req, res, ctx);
    },
  },
  {
    name: 'a webhook url of the wrong type accepted (endpoint change)',
    profile: 'sandbox',
    async onResponse(req, res, ctx) {
      const body = parsed(req.body);
      if (
        !req.path.endsWith('/webhook-endpoint') ||
        req.method !== 'PUT' ||
        res.status !== 400 ||
        !body ||
        typeof body.url === 'string' ||
        body.url === null ||
        !('url' in body)
      )
        return res;
      return endpointAnswer(req, res, ctx);
    },
  },
  {
    name: 'a wrong-format deliveryId answered 404 instead of 400 (redeliver)',
    profile: 'sandbox',
    async onResponse(req, res) {
      if (!/^\/api\/v1\/sandbox\/webhook-deliveries\/[^/]+\/redeliver$/.test(req.path) || res.status !== 400) return res;
      return withJson(res, { error: { code: 'DELIVERY_NOT_FOUND', message: 'Webhook delivery not found' } }, 404);
    },
  },
];
