/**
 * The items judged from the merchant's own traffic while certify observes: the sandbox records
 * the merchant's API calls (ADR-056), certify reads them with the webhook events of the same
 * time and judges:
 *
 *   - verification before fulfilment: every transaction approved while observing (its
 *     `transaction.approved` event) was read by A2, A3, B2 or B3 after that event, answered 200,
 *     from a backend (no `Origin`, `Referer` or `Sec-Fetch-Site`);
 *   - key hygiene: no call carrying the API key came with a browser header or went to a route
 *     of the SDK (`x-internal`);
 *   - resilience (with the fault rules of resilience.ts): see there.
 */
import { variants } from '../generated/index.ts';
import type { components } from '../generated/v1/schema.d.ts';
import { callApi, type SandboxTarget } from '../lib/sandbox-client.ts';
import { guideLink, type CheckItem, type ItemGroup, type Verdict } from './checklist.ts';
import { resilienceItems, startResilienceRules } from './resilience.ts';

type Json = Record<string, unknown>;

/** An entry of the sandbox's API log, as the contract declares it (ADR-056). */
type LogEntry = components['schemas']['SandboxApiLog']['entries'][number];

export interface Observation {
  /** When recording started (merchant sandbox time). */
  startedAt: string;
  /** True when the resilience fault rules ran. */
  resilience: boolean;
  stop(): Promise<void>;
}

/** The verification operations: A2, A3, B2, B3. */
export const VERIFICATIONS = [
  'getTransactionStatusBySessionToken',
  'verifyTransaction',
  'getPartnerTransaction',
  'getPartnerTransactionByVendorReference',
] as const;

const OPS = { ...variants.v1.operations, ...variants.v2.operations } as Record<string, { sandbox: boolean; internal: boolean }>;

/** Starts recording the merchant's API calls, and with `resilience` the fault rules of resilience.ts. */
export async function startObservation(t: SandboxTarget, resilience = false): Promise<Observation> {
  const log = await callApi(t, 'PUT', '/api/v1/sandbox/api-log', { recording: true });
  const rules = resilience ? startResilienceRules(t) : null;
  await rules?.ready;
  return {
    startedAt: String(log.startedAt),
    resilience,
    async stop() {
      await rules?.stop();
      // a call answered just now is appended once its answer is sent
      await new Promise((r) => setTimeout(r, 300));
      await callApi(t, 'PUT', '/api/v1/sandbox/api-log', { recording: false });
    },
  };
}

const fromBrowser = (e: LogEntry): string | null =>
  e.origin !== null
    ? `Origin ${e.origin}`
    : e.referer !== null
      ? `Referer ${e.referer}`
      : e.secFetchSite !== null
        ? `Sec-Fetch-Site ${e.secFetchSite}`
        : null;

/** Every page of a sandbox list. */
async function allPages(t: SandboxTarget, path: string): Promise<Json[]> {
  const out: Json[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const page = await callApi(t, 'GET', `${path}?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    out.push(...((page.data as Json[] | undefined) ?? []));
    cursor = (page.nextCursor as string | null | undefined) ?? null;
    if (!cursor) break;
  }
  return out;
}

/** The verification, key hygiene and resilience items of an observation (not observed without one). */
export async function observationItems(t: SandboxTarget, obs: Observation | null, docsUrl: string): Promise<CheckItem[]> {
  const item = (group: ItemGroup, id: string, title: string, verdict: Verdict, seen: string): CheckItem => ({
    id: `${group}.${id}`,
    group,
    title,
    verdict,
    seen,
    guide: guideLink(docsUrl, group),
  });
  const titles = {
    verification: 'Verifies the transaction from the backend (A2, A3, B2 or B3) before fulfilling',
    hygiene: 'The API key never travels through a browser or the SDK',
  };
  if (!obs) {
    const why = 'not observed: run paylater certify with --observe SECONDS and make a checkout through your shop meanwhile';
    return [
      item('verification', 'before-fulfilment', titles.verification, 'not_observed', why),
      item('key-hygiene', 'no-browser', titles.hygiene, 'not_observed', why),
      ...resilienceItems([], docsUrl, false),
    ];
  }
  const log = await callApi(t, 'GET', '/api/v1/sandbox/api-log');
  const entries = ((log.entries as LogEntry[] | undefined) ?? []).filter((e) => !(e.operationId && OPS[e.operationId]?.sandbox));
  const since = Date.parse(obs.startedAt);
  const out: CheckItem[] = [];

  // verification before fulfilment
  const approvals = (await allPages(t, '/api/v1/sandbox/webhook-deliveries')).filter(
    (d) => d.event === 'transaction.approved' && Date.parse(String(d.createdAt)) >= since,
  );
  const txs = new Map((await allPages(t, '/api/v1/sandbox/transactions')).map((x) => [String(x.id), x]));
  const approved = approvals.filter((d) => txs.has(String(d.transactionId)));
  if (approved.length === 0) {
    out.push(
      item(
        'verification',
        'before-fulfilment',
        titles.verification,
        'not_observed',
        'no checkout session was paid and no partner transaction approved while observing',
      ),
    );
  } else {
    const problems: string[] = [];
    const fine: string[] = [];
    for (const d of approved) {
      const id = String(d.transactionId);
      const ref = (txs.get(id)!.vendorReference as string | null) ?? null;
      const at = Date.parse(String(d.createdAt));
      const reads = entries.filter(
        (e) =>
          VERIFICATIONS.includes(e.operationId as (typeof VERIFICATIONS)[number]) &&
          (e.transactionId === id || (ref !== null && e.vendorReference === ref)) &&
          Date.parse(e.at) >= at,
      );
      const good = reads.find((e) => e.status === 200 && fromBrowser(e) === null);
      if (good) fine.push(`${id} read by ${good.operationId} ${Math.round((Date.parse(good.at) - at) / 10) / 100} s after its approval`);
      else if (reads.length > 0)
        problems.push(
          `${id} was read only ${reads.map((e) => `by ${e.operationId} (${e.status ?? 'no answer'}${fromBrowser(e) ? `, from a browser: ${fromBrowser(e)}` : ''})`).join(', ')}`,
        );
      else problems.push(`${id} (approved at ${String(d.createdAt)}) was never read by A2, A3, B2 or B3 after its approval`);
    }
    out.push(
      item(
        'verification',
        'before-fulfilment',
        titles.verification,
        problems.length ? 'fail' : 'pass',
        problems.length
          ? `${problems.join('; ')}: the order was fulfilled on the redirect or the event alone, which anyone can forge`
          : `${approved.length} approved transaction(s), each verified by the backend: ${fine.join('; ')}`,
      ),
    );
  }

  // key hygiene
  const keyed = entries.filter((e) => e.credential === 'apiKey');
  const leaks = keyed.flatMap((e) => {
    const why = fromBrowser(e) ?? (e.operationId && OPS[e.operationId]?.internal ? `sent to the SDK's route ${e.operationId}` : null);
    return why ? [`${e.method} ${e.path} (${why})`] : [];
  });
  out.push(
    keyed.length === 0
      ? item('key-hygiene', 'no-browser', titles.hygiene, 'not_observed', 'no call with the API key was made while observing')
      : item(
          'key-hygiene',
          'no-browser',
          titles.hygiene,
          leaks.length ? 'fail' : 'pass',
          leaks.length
            ? `${leaks.length} of ${keyed.length} call(s) with the API key came from a browser or went to the SDK: ${leaks.slice(0, 5).join('; ')}${leaks.length > 5 ? '; …' : ''}`
            : `${keyed.length} call(s) with the API key, none with a browser's Origin, Referer or Sec-Fetch-Site, none to the SDK's routes`,
        ),
  );
  return [...out, ...resilienceItems(entries, docsUrl, obs.resilience)];
}
