/**
 * The curl script of a finding sends each body byte for byte: bash reads it inside double quotes,
 * so a backslash, double quote, backquote or dollar in a generated value must reach curl as sent.
 * Run with a `curl` function that prints its `--data-binary` argument.
 */
import { execFileSync } from 'node:child_process';
import { expect, it } from 'vitest';
import type { NamedExchange as Exchange } from './exchange.ts';
import { curlScript } from './report.ts';

const exchange = (body: string): Exchange => ({
  opId: 'createSession',
  method: 'POST',
  url: 'http://127.0.0.1:9/api/v1/public/sessions',
  headers: { 'X-API-Key': 'sk_test_main_key', 'Content-Type': 'application/json' },
  body,
  status: 200,
  responseHeaders: {},
  responseText: '{}',
  json: {},
  sentAt: 0,
  receivedAt: 1,
});

it('a body with backslash, double quote, backquote, dollar and non-Latin text reaches curl unchanged', () => {
  const body = JSON.stringify({ items: [{ name: 'طاجين "x" `y` $HOME ${PATH} \\ }\\"i', id: '?&R%$' }], total: 600 });
  const script = curlScript([exchange(body)], {
    apiKey: 'sk_test_main_key',
    otherApiKey: 'sk_test_other_key',
    baseUrl: 'http://127.0.0.1:9',
  });
  const fake =
    'curl() { while [ $# -gt 0 ]; do if [ "$1" = --data-binary ]; then printf %s "$2"; fi; shift; done; }; export -f curl 2>/dev/null; ';
  const out = execFileSync('bash', ['-c', `${fake}${script.replace('#!/usr/bin/env bash', '')}`], {
    env: { ...process.env, API_KEY: 'sk_test_main_key', OTHER_API_KEY: 'sk_test_other_key' },
    encoding: 'utf8',
  });
  expect(out).toBe(body);
});
