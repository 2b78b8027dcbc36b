/**
 * Authentication by the header of the operation's security scheme: a merchant's API key
 * (compared in constant time with every merchant's digest) or a checkout session token.
 * Header names are case-insensitive; a header sent twice is refused.
 */
import { errorMessage } from '../../lib/error-messages.ts';
import type express from 'express';
import type { MerchantConfig, ServerConfig } from '../config.ts';
import type { Core } from '../core.ts';
import { digestBytesEqual, sha256, sha256Bytes } from '../domain/ids.ts';
import { isTokenLive } from '../domain/token.ts';
import type { SessionRecord } from '../domain/types.ts';
import { invalidKey, invalidToken } from './errors.ts';
import type { OperationInfo } from './operations.ts';

export interface Authenticator {
  /** The merchant of the API key in the operation's header (`auth.kind === 'apiKey'`). */
  key(req: express.Request, auth: NonNullable<OperationInfo['auth']>): MerchantConfig;
  /** The session of the session token in the operation's header (`auth.kind === 'sessionToken'`), and its merchant. */
  /** Reads the merchant's state again (see core.ts) before checking the token's lifetime on its clock. */
  token(req: express.Request, auth: NonNullable<OperationInfo['auth']>): Promise<{ session: SessionRecord; merchant: MerchantConfig }>;
}

/** Every value of header `name` (lower case) as sent, duplicates included. */
export function headerValues(req: express.Request, name: string): string[] {
  const out: string[] = [];
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const k = raw[i]!;
    if (k.length === name.length && k.toLowerCase() === name) out.push(raw[i + 1]!);
  }
  return out;
}

/** True when a merchant's key kind fits the server's mode (test keys in the sandbox, live keys in production). */
function keyFitsMode(config: ServerConfig, merchant: MerchantConfig): boolean {
  return (config.mode === 'sandbox') === (merchant.keyMode === 'test');
}

/**
 * Binds the merchants' key digests once, at start-up. A key sent is hashed once (a map of at most
 * 1,024 keys to digests, emptied when full: pure computation), then compared with every merchant's.
 */
export function createAuthenticator(core: Core): Authenticator {
  const { config, repo } = core;
  const merchants = config.merchants;
  const keyDigests = merchants.map((m) => {
    const b = Buffer.from(m.keyDigest, 'hex');
    if (b.length !== 32) throw new Error(`merchant ${m.id}: key digest is not a SHA-256`);
    return b;
  });
  const digests = new Map<string, Buffer>();

  return {
    /**
     * 401 INVALID_API_KEY for a missing, repeated, unknown or wrong-mode key.
     * @rule auth-api-key
     */
    key(req, auth) {
      const values = headerValues(req, auth.header);
      if (values.length === 0) throw invalidKey(errorMessage('INVALID_API_KEY', { header: auth.title }, 1));
      if (values.length > 1) throw invalidKey(errorMessage('INVALID_API_KEY', { header: auth.title }, 2));
      const key = values[0]!.trim();
      let digest = digests.get(key);
      if (!digest) {
        if (digests.size >= 1024) digests.clear();
        digests.set(key, (digest = sha256Bytes(key)));
      }
      let found: MerchantConfig | undefined;
      // No early exit: every merchant's digest is compared, in constant time each.
      for (let i = 0; i < merchants.length; i++) if (digestBytesEqual(keyDigests[i]!, digest)) found = merchants[i];
      if (!found) throw invalidKey();
      if (!keyFitsMode(config, found)) {
        throw invalidKey(errorMessage('INVALID_API_KEY', {}, config.mode === 'sandbox' ? 3 : 4));
      }
      return found;
    },

    async token(req, auth) {
      const values = headerValues(req, auth.header);
      if (values.length !== 1) throw invalidToken();
      const session = await repo.sessionByTokenDigest(sha256(values[0]!.trim()));
      if (!session) throw invalidToken();
      const merchant = core.merchantsById.get(session.merchantId);
      if (!merchant || !keyFitsMode(config, merchant)) throw invalidToken();
      await core.refreshMerchant(merchant.id);
      if (!isTokenLive(session, core.now(merchant.id))) throw invalidToken();
      return { session, merchant };
    },
  };
}
