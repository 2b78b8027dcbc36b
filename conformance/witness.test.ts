/**
 * The witnesses' inputs: a write as the World notes it (`writes.ts`: its merchant by its key, the
 * keys it names in its path, body and answer, whether it changes its merchant's sandbox state),
 * and the receiver's record of which secret made each signature of a delivery (ADR-042).
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import type { Exchange } from './http.ts';
import { newModelState } from './model-state.ts';
import { Contract } from '../judge/contract.ts';
import { WebhookReceiver } from './webhooks.ts';
import { noteWrite } from './writes.ts';

const contract = Contract.for(1);
const keys = { main: 'sk_test_main', other: 'sk_test_other' };
const base = 'http://127.0.0.1:1';

function exchange(opId: string, path: string, headers: Record<string, string>, body: unknown, status: number, json: unknown): Exchange {
  const op = contract.op(opId);
  return {
    opId,
    method: op.method,
    url: base + path,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    status,
    responseHeaders: {},
    responseText: JSON.stringify(json),
    json,
    sentAt: 0,
    receivedAt: 1,
  };
}

describe('a write as noted for its witnesses', () => {
  it("B4 by the other merchant's key: its reference from the path, its id from the answer, refused or not", () => {
    const s = newModelState(contract, 'sandbox');
    noteWrite(
      s,
      contract,
      keys,
      exchange(
        'cancelPartnerTransactionByVendorReference',
        '/api/v1/public/partner/transactions/vendor/ORDER%2F1/cancel',
        { 'X-Api-Key': keys.other },
        undefined,
        404,
        { error: { code: 'TRANSACTION_NOT_FOUND' } },
      ),
    );
    noteWrite(
      s,
      contract,
      keys,
      exchange(
        'createPartnerTransaction',
        '/api/v1/public/partner/transactions',
        { 'X-Service-Key': keys.main },
        { vendorReference: 'R-2', total: 600 },
        201,
        { id: 't-2', vendorReference: 'R-2' },
      ),
    );
    expect(s.writes.map((x) => [x.who, x.status, x.keys, x.merchantWide])).toEqual([
      ['other', 404, { vendorReferences: ['ORDER/1'], transactionIds: [], sessionTokens: [] }, false],
      ['main', 201, { vendorReferences: ['R-2'], transactionIds: ['t-2'], sessionTokens: [] }, false],
    ]);
  });
  it('a sandbox operation naming no record changes its merchant state; paying a session names the session', () => {
    const s = newModelState(contract, 'sandbox');
    noteWrite(
      s,
      contract,
      keys,
      exchange('sandboxReset', '/api/v1/sandbox/reset', { 'X-API-Key': keys.main }, {}, 200, { offsetSeconds: 0 }),
    );
    noteWrite(
      s,
      contract,
      keys,
      exchange(
        'sandboxPaySession',
        '/api/v1/sandbox/sessions/pay',
        { 'X-API-Key': keys.main },
        { session_token: 'st_1', outcome: 'success' },
        200,
        { transaction_id: 't-9' },
      ),
    );
    expect(s.writes.map((x) => [x.opId, x.merchantWide, x.keys.sessionTokens, x.keys.transactionIds])).toEqual([
      ['sandboxReset', true, [], []],
      ['sandboxPaySession', false, ['st_1'], ['t-9']],
    ]);
  });
  it('reads, and requests with neither key, are not writes of a merchant; A1 successes are counted', () => {
    const s = newModelState(contract, 'sandbox');
    noteWrite(
      s,
      contract,
      keys,
      exchange('getPartnerTransaction', '/api/v1/public/partner/transactions/t-1', { 'X-Api-Key': keys.main }, undefined, 200, {
        id: 't-1',
      }),
    );
    noteWrite(s, contract, keys, exchange('sandboxReset', '/api/v1/sandbox/reset', { 'X-API-Key': 'sk_test_wrong' }, {}, 401, {}));
    noteWrite(
      s,
      contract,
      keys,
      exchange('createSession', '/api/v1/public/sessions', { 'X-API-Key': keys.main }, { total: 600 }, 200, { token: 'st_2' }),
    );
    expect(s.writes.map((x) => x.opId)).toEqual(['createSession']);
    expect(s.sessionsCreated).toEqual({ main: 1, other: 0 });
  });
});

describe('which secret made each signature of a delivery', () => {
  const secret = () => `whsec_${randomBytes(24).toString('base64')}`;
  const [s0, s1, s2] = [secret(), secret(), secret()];
  const body = JSON.stringify({ event: 'transaction.cancelled', data: { id: 't' } });
  const signed = (...secrets: string[]) => {
    const ts = new Date();
    return {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(Math.floor(ts.getTime() / 1000)),
      'webhook-signature': secrets.map((x) => new Webhook(x).sign('msg_1', ts, body)).join(' '),
    };
  };
  it('in the header order; one the receiver does not know is null; verified while one known secret signed', () => {
    const rx = new WebhookReceiver(0, s0, new Map());
    rx.receive(body, signed(s0));
    rx.accept([s2, s1, s0]);
    rx.receive(body, signed(s2, s1));
    rx.receive(body, signed(s2, secret()));
    rx.accept([s1]);
    rx.receive(body, signed(s0));
    expect(rx.deliveries.map((d) => d.signers)).toEqual([[s0], [s2, s1], [s2, null], [null]]);
    expect(rx.deliveries.map((d) => d.problems.some((p) => p.startsWith('signature')))).toEqual([false, false, false, true]);
  });
});
