/**
 * The exchange ring keeps no parsed answer (report.ts `slim`: a parsed JSON per held exchange is what
 * V8 copies and promotes), yet a finding's curl script still captures an id an earlier answer gave
 * and a later request used: the ring's answer text is parsed again for it.
 */
import { expect, it } from 'vitest';
import type { NamedExchange as Exchange } from '../judge/exchange.ts';
import { createJudge } from '../judge/index.ts';
import { Recorder } from './report.ts';

const UPSTREAM = 'http://upstream.test';
const ID = '7d3f7a52-5c8e-4f41-9d55-2f0a1c3b9e10';

function exchange(over: Partial<Exchange>): Exchange {
  return {
    opId: 'createPartnerTransaction',
    method: 'POST',
    url: `${UPSTREAM}/api/v1/public/partner/transactions`,
    headers: { 'x-service-key': 'sk_test_report_key_0001' },
    status: 201,
    responseHeaders: { 'content-type': 'application/json' },
    responseText: '',
    json: undefined,
    sentAt: 1,
    receivedAt: 2,
    ...over,
  };
}

it('a finding curl script captures the id of an earlier answer held in the ring', () => {
  const recorder = new Recorder({
    upstream: UPSTREAM,
    judge: createJudge({ variant: 1 }),
    keep: 10,
    secrets: [],
  });
  const created = { id: ID, status: 'PENDING' };
  recorder.record(1, exchange({ body: '{"total":10}', responseText: JSON.stringify(created), json: created }));
  const read = exchange({
    opId: 'getPartnerTransaction',
    method: 'GET',
    url: `${UPSTREAM}/api/v1/public/partner/transactions/${ID}`,
    headers: { 'x-api-key': 'sk_test_report_key_0001' },
    status: 200,
    responseText: '{}',
    json: {},
  });
  recorder.record(2, read);
  recorder.judged([{ kind: 'answer', operation: 'getPartnerTransaction', jsonPath: '$', message: 'a finding', exchanges: [1, 2] }]);
  const curl = (recorder.report() as { findingList: { curl: string }[] }).findingList[0]!.curl;
  expect(curl).toContain(`ID_1=$(jq -r '.id' <<<"$R1")`);
  expect(curl).toContain('/api/v1/public/partner/transactions/${ID_1}"');
  // the HAR of the ring still shows the answer's text
  const entries = (recorder.har() as { log: { entries: { response: { content: { text: string } } }[] } }).log.entries;
  expect(entries[0]!.response.content.text).toBe(JSON.stringify(created));
});
