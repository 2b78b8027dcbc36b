/**
 * The API key check (http/auth.ts): a key is hashed once however many requests carry it (a
 * bounded map of digests), and the merchant is still found by its digest.
 */
import type express from 'express';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Core } from '../core.ts';
import { sha256 } from '../domain/ids.ts';

const hashed: string[] = [];
vi.mock('../domain/ids.ts', async (importOriginal) => {
  const ids = await importOriginal<typeof import('../domain/ids.ts')>();
  return {
    ...ids,
    sha256Bytes: (s: string) => {
      hashed.push(s);
      return ids.sha256Bytes(s);
    },
  };
});
const { createAuthenticator } = await import('./auth.ts');

const KEY = 'sk_test_auth_digest_cache_1';
const core = {
  config: { mode: 'sandbox', merchants: [{ id: 'm1', keyDigest: sha256(KEY), keyMode: 'test' }] },
  repo: {},
} as unknown as Core;
const auth = { scheme: 'ApiKey', kind: 'apiKey' as const, header: 'x-api-key', title: 'X-Api-Key' };
const request = (key: string) => ({ rawHeaders: ['X-Api-Key', key] }) as unknown as express.Request;

beforeEach(() => {
  hashed.length = 0;
});

describe('createAuthenticator().key', () => {
  it('hashes a key once across requests, and still finds its merchant (or refuses an unknown key) on each', () => {
    const a = createAuthenticator(core);
    for (let i = 0; i < 3; i++) expect(a.key(request(KEY), auth).id).toBe('m1');
    for (let i = 0; i < 2; i++) expect(() => a.key(request('sk_test_unknown_key_000'), auth)).toThrow(/API key/i);
    expect(hashed).toEqual([KEY, 'sk_test_unknown_key_000']);
  });

  it('keeps a bounded number of digests: keys sent at random are hashed again, a known key is still accepted', () => {
    const a = createAuthenticator(core);
    for (let i = 0; i < 3000; i++) expect(() => a.key(request(`sk_test_random_${i}`), auth)).toThrow();
    expect(a.key(request(KEY), auth).id).toBe('m1');
    expect(() => a.key(request('sk_test_random_0'), auth)).toThrow();
    // the first random key was dropped when the map filled: hashed again
    expect(hashed.filter((k) => k === 'sk_test_random_0')).toHaveLength(2);
    expect(hashed).toHaveLength(3002);
  });
});
