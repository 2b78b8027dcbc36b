/**
 * Injected faults of failures on demand (ADR-052), as a server that gets them wrong would
 * answer: the header ignored, a simulated failure that still runs the call, a 503 whose two
 * waits differ, a fault rule ignored; and an API log (ADR-056) that loses what it must show.
 */
import { json, withJson, type Mutant, type ProxyRequest } from './proxy.ts';

const HEADER = 'paylater-simulate';
const isB1 = (req: ProxyRequest): boolean => req.method === 'POST' && req.path.split('?')[0] === '/api/v1/public/partner/transactions';
const without = (req: ProxyRequest): ProxyRequest => {
  const { [HEADER]: _gone, ...headers } = req.headers;
  return { ...req, headers };
};

export const simulateMutants: Mutant[] = [
  {
    name: 'Paylater-Simulate ignored (the call runs as usual)',
    profile: 'sandbox',
    onRequest: (req, ctx) => (req.headers[HEADER] ? ctx.forward(without(req)) : Promise.resolve(undefined)),
  },
  {
    name: 'a simulated 500 on B1 still stores the transaction',
    profile: 'sandbox',
    async onRequest(req, ctx) {
      if (!isB1(req) || req.headers[HEADER] !== '500') return undefined;
      const real = await ctx.forward(without(req));
      return withJson(real, { error: { code: 'INTERNAL_ERROR', message: 'Internal server error' } }, 500);
    },
  },
  {
    name: "a simulated 503's Retry-After differs from its retry_after",
    profile: 'sandbox',
    onResponse: (req, res) =>
      Promise.resolve(
        req.headers[HEADER] === '503' && res.status === 503
          ? { ...res, headers: { ...res.headers, 'retry-after': String(Number(res.headers['retry-after'] ?? 5) + 1) } }
          : res,
      ),
  },
  {
    name: 'the sandbox fault rule is accepted but never applied',
    profile: 'sandbox',
    async onRequest(req, ctx) {
      if (req.method !== 'PUT' || req.path !== '/api/v1/sandbox/faults') return undefined;
      const asked = await ctx.forward(req);
      const rule = json(asked).rule;
      if (asked.status !== 200 || !rule) return asked;
      // the rule is replaced by one for an operation B1 never is, and shown as asked
      await ctx.forward({ ...req, body: JSON.stringify({ rule: { failure: '500', operations: ['getPartnerTransaction'], times: 1 } }) });
      return asked;
    },
  },
  {
    name: 'the API log drops the Origin of the calls it records (ADR-056)',
    profile: 'sandbox',
    onResponse: (req, res) =>
      Promise.resolve(
        req.method === 'GET' && req.path === '/api/v1/sandbox/api-log' && res.status === 200
          ? withJson(res, { ...json(res), entries: (json(res).entries as Record<string, unknown>[]).map((e) => ({ ...e, origin: null })) })
          : res,
      ),
  },
];
