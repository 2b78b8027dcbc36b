/**
 * Before the suite starts: the server answers, both keys are accepted, belong to the variant the
 * run was given and to two different merchants. Only those make a run impossible (SetupError,
 * exit 2); a contract violation in an answer seen here is a finding like any other (thrown as a
 * ConformanceError for the caller to report).
 */
import { randomUUID } from 'node:crypto';
import { variants } from '../generated/index.ts';
import { CreateTransaction } from './commands/createTransaction.ts';
import { NoAnswerError, SetupError, type Exchange } from './http.ts';
import { ConformanceError } from '../judge/answer.ts';
import { refusal, type Model } from './model.ts';
import type { Who, World } from './world.ts';

const KEY_OPTION: Record<Who, string> = { main: '--api-key', other: '--other-api-key' };

/** An operation only Variant 1 has: whether a key reaches it tells the key's variant. */
const V1_ONLY = (() => {
  const v2 = variants.v2.operations as Record<string, unknown>;
  const [id, op] = Object.entries(variants.v1.operations).find(([k]) => !(k in v2))!;
  return { id, ...(op as { method: string; path: string; authHeader: string }) };
})();

function codeOf(ex: Exchange): string | undefined {
  return (ex.json as { error?: { code?: string } } | undefined)?.error?.code;
}

/** Reachability, rejected keys and the keys' variant (SetupError); then the probes are judged and read as missing transactions. */
export async function checkKeys(w: World): Promise<void> {
  // the probes are judged once the run can start: a rejected key or a wrong --variant is a SetupError, not a finding
  const probes = await w.client.held(() => probeKeys(w));
  w.client.judgeHeld();
  for (const ex of probes) w.expectOutcome(ex, [refusal('TRANSACTION_NOT_FOUND')]);
}

/** Reachability, rejected keys and the keys' variant (SetupError): the answers to judge as missing transactions. */
async function probeKeys(w: World): Promise<Exchange[]> {
  const probes: Partial<Record<Who, Exchange>> = {};
  for (const who of ['main', 'other'] as const) {
    let ex: Exchange;
    try {
      ex = await w.client.call('getPartnerTransaction', {
        pathParams: { transactionId: randomUUID() },
        headers: w.auth('getPartnerTransaction', w.key(who)),
      });
    } catch (e) {
      if (!(e instanceof NoAnswerError)) throw e;
      throw new SetupError(`cannot reach ${w.cfg.baseUrl}: ${e.reason}`);
    }
    if (ex.status === refusal('INVALID_API_KEY').status)
      throw new SetupError(`the ${KEY_OPTION[who]} was rejected (${ex.status}${codeOf(ex) ? ' ' + codeOf(ex) : ''}) by ${w.cfg.baseUrl}`);
    probes[who] = ex;
  }
  if (w.cfg.apiKey === w.cfg.otherApiKey)
    throw new SetupError('--api-key and --other-api-key are the same key: they must belong to two different merchants');
  const v1Probe = await checkVariant(w);
  return [probes.main!, probes.other!, ...(w.cfg.variant === 1 ? [v1Probe] : [])];
}

/**
 * Each key asks for a missing transaction on the route only Variant 1 has (the main key's answer is
 * returned, to be judged in a Variant 1 run): a Variant 1 key gets the
 * operation's 404, a Variant 2 key the unknown-route 404. Two keys answering differently belong to
 * two variants; both answering like the other variant means the wrong --variant.
 */
async function checkVariant(w: World): Promise<Exchange> {
  const sig: Partial<Record<Who, string>> = {};
  let main: Exchange | undefined;
  for (const who of ['main', 'other'] as const) {
    const ex = await w.client.sendTo(V1_ONLY.id, V1_ONLY.method, V1_ONLY.path, {
      pathParams: { transactionId: randomUUID() },
      headers: { [V1_ONLY.authHeader]: w.key(who) },
    });
    sig[who] = `${ex.status}${codeOf(ex) ? ' ' + codeOf(ex) : ''}`;
    main ??= ex;
  }
  const route = `${V1_ONLY.method} ${V1_ONLY.path} (${V1_ONLY.id}, Variant 1 only)`;
  if (sig.main !== sig.other) {
    throw new SetupError(
      `the two keys belong to different variants: ${route} answered ${sig.main} for --api-key and ${sig.other} for --other-api-key; give two keys of one variant`,
    );
  }
  const routeMissing = sig.main!.endsWith(' ROUTE_NOT_FOUND');
  const opAnswered = sig.main === `${refusal('TRANSACTION_NOT_FOUND').status} TRANSACTION_NOT_FOUND`;
  if (w.cfg.variant === 2 && opAnswered)
    throw new SetupError(`--variant 2, but both keys reach ${route} (answered ${sig.main}): they are Variant 1 keys; pass --variant 1`);
  if (w.cfg.variant === 1 && routeMissing)
    throw new SetupError(
      `--variant 1, but both keys get ${sig.main} on ${route}: they are Variant 2 keys (pass --variant 2), or the server lacks that operation`,
    );
  return main!;
}

/**
 * Each key creates one transaction: two records naming the same merchant and store mean the two
 * keys are one merchant's (SetupError). The transactions join the world like any other.
 */
export async function checkMerchants(w: World): Promise<void> {
  const m: Model = { state: w.state, txs: [], sessions: [] };
  const body = {
    customerPhone: '212612345678',
    total: 600,
    currency: 'MAD',
    items: [{ name: 'Preflight item', quantity: 1, unitPrice: 600 }],
  };
  for (const who of ['main', 'other'] as const) {
    w.executed.push(`preflight: createTransaction(${who})`);
    await new CreateTransaction(body, 'valid', who, 'fresh', 0).run(m, w);
  }
  const [a, b] = m.txs;
  if (!a || !b) throw new ConformanceError('createPartnerTransaction', '$', 'a valid transaction was not created', 201, 'a refusal');
  const name = (t: typeof a): string => `${String(t.created.merchantName)} / ${String(t.created.storeName)}`;
  if (name(a) === name(b))
    throw new SetupError(
      `--api-key and --other-api-key belong to one merchant (both create transactions of ${name(a)}): give keys of two different merchants`,
    );
}
