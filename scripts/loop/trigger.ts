/**
 * `paylater trigger <event> [--transaction ID]`: makes the sandbox produce an event through
 * the real state machine, with the API a merchant has, and prints the ids:
 *   transaction.approved   create (B1), then the customer confirms
 *   transaction.cancelled  create, then the customer cancels
 *   transaction.expired    create, then the merchant's sandbox clock passes the payment window
 *   checkout.paid          a checkout session (A1) paid in the sandbox (a transaction.approved)
 * With `--transaction ID` an existing PENDING transaction is moved instead of a new one.
 */
import { stateMachine } from '../../generated/contract.ts';
import { callApi, CliError, parseOptions, targetOf, type SandboxTarget } from '../../lib/sandbox-client.ts';

export const TRIGGER_USAGE = `Usage: paylater trigger <event> [--transaction ID] [--base-url URL] [--api-key KEY]

Makes the sandbox produce an event through the state machine and prints the ids.

Events:
  transaction.approved   create a transaction, then confirm it as the customer
  transaction.cancelled  create a transaction, then cancel it as the customer
  transaction.expired    create a transaction, then advance the sandbox clock past its payment window
  checkout.paid          create a checkout session and pay it in the sandbox (emits transaction.approved)

Options:
  --transaction ID   move this PENDING transaction instead of creating one (not with checkout.paid)
  --base-url URL     the sandbox (default PAYLATER_BASE_URL or http://127.0.0.1:4010)
  --api-key KEY      a test key (default PAYLATER_API_KEY)
`;

export const TRIGGER_EVENTS = ['transaction.approved', 'transaction.cancelled', 'transaction.expired', 'checkout.paid'] as const;
type TriggerEvent = (typeof TRIGGER_EVENTS)[number];

type Json = Record<string, unknown>;
const SAMPLE_ITEM = { name: 'Wireless headphones', reference: 'SKU-100', quantity: 1, unitPrice: 1299.5 };

async function createTransaction(t: SandboxTarget): Promise<Json> {
  const vendorReference = `TRIGGER-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  return callApi(
    t,
    'POST',
    '/api/v1/public/partner/transactions',
    { customerPhone: '212612345678', total: 1299.5, currency: 'MAD', vendorReference, items: [SAMPLE_ITEM] },
    'X-Service-Key',
  );
}

const getTransaction = (t: SandboxTarget, id: string) => callApi(t, 'GET', `/api/v1/public/partner/transactions/${encodeURIComponent(id)}`);

/** Advances the merchant's sandbox clock until `id` is EXPIRED: to the contract's payment window first, then doubling (a server may configure a longer one). */
async function expire(t: SandboxTarget, id: string, out: (s: string) => void): Promise<Json> {
  let tx = await getTransaction(t, id);
  const clock = await callApi(t, 'GET', '/api/v1/sandbox/clock');
  let step = Math.max(
    1,
    Math.ceil((Date.parse(String(tx.createdAt)) + stateMachine.paymentWindow.defaultSeconds * 1000 - Date.parse(String(clock.now))) / 1000),
  );
  for (let moved = 0; tx.status === 'PENDING';) {
    // past the longest window a deployment may set, it will never expire
    if (moved > stateMachine.paymentWindow.maxSeconds)
      throw new CliError(`transaction ${id} is still PENDING after advancing the clock ${moved} s`);
    const c = await callApi(t, 'POST', '/api/v1/sandbox/clock/advance', { seconds: step });
    out(`clock advanced ${step} s (sandbox time ${String(c.now)})\n`);
    moved += step;
    step = moved;
    tx = await getTransaction(t, id);
  }
  return tx;
}

/** The checkout session body of the merchant's variant: Variant 1 takes `total` as a number, Variant 2 as a string. */
async function payCheckout(t: SandboxTarget): Promise<{ transactionId: string; status: string }> {
  const items = [{ id: 'SKU-100', name: 'Wireless headphones', price: 1299.5, quantity: 1 }];
  let session: Json;
  try {
    session = await callApi(t, 'POST', '/api/v1/public/sessions', { total: 1299.5, currency: 'MAD', items });
  } catch (e) {
    if (!(e instanceof CliError) || !/ 400 /.test(e.message)) throw e;
    session = await callApi(t, 'POST', '/api/v1/public/sessions', { total: '1299.50', currency: 'MAD', items });
  }
  const token = String(session.token ?? session.session_token);
  const paid = await callApi(t, 'POST', '/api/v1/sandbox/sessions/pay', { session_token: token, outcome: 'success' });
  return { transactionId: String(paid.transaction_id), status: String(paid.status) };
}

/** The deliveries the sandbox recorded for `transactionId` (newest first), as `id event state` lines. */
async function deliveriesOf(t: SandboxTarget, transactionId: string): Promise<string[]> {
  const list = await callApi(t, 'GET', '/api/v1/sandbox/webhook-deliveries');
  return ((list.data ?? []) as Json[])
    .filter((d) => d.transactionId === transactionId)
    .map((d) => `${String(d.id)} ${String(d.event)} ${String(d.state)}`);
}

export async function runTrigger(argv: string[], out: (s: string) => void = (s) => process.stdout.write(s)): Promise<number> {
  const { options, positionals } = parseOptions(argv, ['transaction', 'base-url', 'api-key'], ['help']);
  if (options.has('help')) {
    out(TRIGGER_USAGE);
    return 0;
  }
  const event = positionals[0] as TriggerEvent | undefined;
  if (!event || !TRIGGER_EVENTS.includes(event) || positionals.length > 1)
    throw new CliError(`expected one event of ${TRIGGER_EVENTS.join(', ')}\n\n${TRIGGER_USAGE}`, 2);
  const t = targetOf(options);
  const given = options.get('transaction');
  if (given && event === 'checkout.paid')
    throw new CliError('--transaction does not apply to checkout.paid (it creates its own session)', 2);

  let id: string;
  let status: string;
  if (event === 'checkout.paid') {
    // A checkout transaction is read with the session token (A2), not by B2: the pay answer says its status.
    ({ transactionId: id, status } = await payCheckout(t));
    out(`checkout session paid: transaction ${id}\n`);
  } else {
    if (given) id = given;
    else {
      const tx = await createTransaction(t);
      id = String(tx.id);
      out(`created transaction ${id} (vendorReference ${String(tx.vendorReference)})\n`);
    }
    if (event === 'transaction.approved') await callApi(t, 'POST', `/api/v1/sandbox/transactions/${encodeURIComponent(id)}/confirm`);
    else if (event === 'transaction.cancelled') await callApi(t, 'POST', `/api/v1/sandbox/transactions/${encodeURIComponent(id)}/cancel`);
    else await expire(t, id, out);
    status = String((await getTransaction(t, id)).status);
  }
  out(`transaction ${id} is ${status}\n`);
  for (const line of await deliveriesOf(t, id)) out(`webhook delivery ${line}\n`);
  return 0;
}
