/**
 * Server configuration: mode, payment window and merchants. API keys are kept only as
 * SHA-256 digests; the raw key never leaves this module's input.
 */
import { centimesFromNumber } from '../lib/money.ts';
import { checkWebhookUrl } from './webhooks/url-policy.ts';
import { normaliseOrigin } from './domain/redirect.ts';
import { sha256 } from './domain/ids.ts';
import { defaultPaymentWindowSeconds } from './domain/stateMachine.ts';

export type Mode = 'sandbox' | 'production';

/** The failed-authentication throttle's setting (ADR-027): `limit` failures per `windowSeconds` and address. */
export interface AuthFailureLimit {
  limit: number;
  windowSeconds: number;
}

/** One entry of the `--merchants` file (and of `startTestServer({ merchants })`). */
export interface MerchantConfigInput {
  name: string;
  storeName: string;
  apiKey: string;
  variant: 1 | 2;
  webhookUrl?: string | null;
  webhookSecret?: string | null;
  active?: boolean;
  /** MAD, at most two decimals. */
  creditLimit?: number | null;
  allowedOrigins?: string[];
}

export interface MerchantConfig {
  /** Stable id derived from the key digest. */
  id: string;
  name: string;
  storeName: string;
  keyDigest: string;
  /** `test` for `sk_test_…`, `live` for `sk_live_…` (ADR-020). */
  keyMode: 'test' | 'live';
  variant: 1 | 2;
  webhookUrl: string | null;
  webhookSecret: string | null;
  active: boolean;
  creditLimitCentimes: number | null;
  allowedOrigins: string[];
}

export interface ServerConfig {
  mode: Mode;
  paymentWindowSeconds: number;
  merchants: MerchantConfig[];
  /** Base URL of absolute links (checkout_url), `--public-url`; default: the address the connection reached (never the Host header). */
  publicBaseUrl?: string;
  /** Failed-authentication throttle (ADR-027): default the spec's `x-auth-failure-limit` (http/auth-throttle.ts); null turns it off. */
  authFailureLimit?: AuthFailureLimit | null;
  /** How often PENDING transactions are swept for expiry in real time (ms). Default 1000. */
  sweepIntervalMs?: number;
  /** Log sink (never receives keys). Default: stderr. */
  log?: (line: string) => void;
}

export const DEMO_ALLOWED_ORIGINS = ['http://127.0.0.1:4010', 'http://localhost:4010'];

/** The two demo merchants created when no `--merchants` file is given. */
export const DEMO_MERCHANTS: readonly MerchantConfigInput[] = [
  {
    name: 'Atlas Electronics',
    storeName: 'Atlas Casablanca',
    apiKey: 'sk_test_v1_demo_4f7c2a9e1b3d5f60',
    variant: 1,
    webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    active: true,
    allowedOrigins: DEMO_ALLOWED_ORIGINS,
  },
  {
    name: 'Souk Digital',
    storeName: 'Souk Digital Rabat',
    apiKey: 'sk_test_v2_demo_8b1e6d3c5a7f9e20',
    variant: 2,
    webhookSecret: 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
    active: true,
    allowedOrigins: DEMO_ALLOWED_ORIGINS,
  },
];

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

const FIELDS = new Set([
  'name',
  'storeName',
  'apiKey',
  'variant',
  'webhookUrl',
  'webhookSecret',
  'active',
  'creditLimit',
  'allowedOrigins',
]);

export function merchantIdOf(keyDigest: string): string {
  return `mer_${keyDigest.slice(0, 24)}`;
}

/** Characters a merchants file's key carries after `sk_test_`/`sk_live_` at least (ADR-027). */
export const MIN_FILE_KEY_CHARS = 24;

/**
 * Validates merchant entries (from a file or from code) and turns them into configuration.
 * `minKeyChars`: the least characters after the key prefix (a file asks `MIN_FILE_KEY_CHARS`).
 */
export function buildMerchants(input: unknown, where = 'merchants', minKeyChars = 8): MerchantConfig[] {
  if (!Array.isArray(input)) throw new ConfigError(`${where}: expected a JSON array of merchants`);
  if (input.length === 0) throw new ConfigError(`${where}: the array is empty; give at least one merchant`);
  const seen = new Set<string>();
  return input.map((m: unknown, i) => {
    const at = `${where}[${i}]`;
    if (typeof m !== 'object' || m === null || Array.isArray(m)) throw new ConfigError(`${at}: expected an object`);
    const o = m as Record<string, unknown>;
    for (const k of Object.keys(o))
      if (!FIELDS.has(k)) throw new ConfigError(`${at}: unknown field "${k}" (allowed: ${[...FIELDS].join(', ')})`);
    const str = (k: string, required: boolean): string | null => {
      const v = o[k];
      if (v === undefined || v === null) {
        if (required) throw new ConfigError(`${at}: "${k}" is required`);
        return null;
      }
      if (typeof v !== 'string' || v.trim() === '') throw new ConfigError(`${at}: "${k}" must be a non-empty string`);
      return v;
    };
    const name = str('name', true)!;
    const storeName = str('storeName', true)!;
    const apiKey = str('apiKey', true)!;
    const keyMode = apiKey.startsWith('sk_test_') ? 'test' : apiKey.startsWith('sk_live_') ? 'live' : null;
    if (!keyMode || !new RegExp(`^sk_(test|live)_[A-Za-z0-9_]{${minKeyChars},}$`).test(apiKey)) {
      throw new ConfigError(
        `${at}: "apiKey" must be sk_test_… or sk_live_… followed by at least ${minKeyChars} random letters, digits or underscores`,
      );
    }
    if (o.variant !== 1 && o.variant !== 2) throw new ConfigError(`${at}: "variant" must be 1 or 2`);
    const webhookUrl = str('webhookUrl', false);
    if (webhookUrl !== null) {
      let u: URL | null = null;
      try {
        u = new URL(webhookUrl);
      } catch {
        /* handled below */
      }
      if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:'))
        throw new ConfigError(`${at}: "webhookUrl" must be an absolute http or https URL`);
    }
    const webhookSecret = str('webhookSecret', false);
    if (webhookSecret !== null && !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(webhookSecret))
      throw new ConfigError(`${at}: "webhookSecret" must be whsec_ followed by base64`);
    if (o.active !== undefined && typeof o.active !== 'boolean') throw new ConfigError(`${at}: "active" must be true or false`);
    let creditLimitCentimes: number | null = null;
    if (o.creditLimit !== undefined && o.creditLimit !== null) {
      const c = typeof o.creditLimit === 'number' ? centimesFromNumber(o.creditLimit) : null;
      if (c === null || c < 0) throw new ConfigError(`${at}: "creditLimit" must be a non-negative amount with at most two decimals`);
      creditLimitCentimes = c;
    }
    let allowedOrigins: string[] = [];
    if (o.allowedOrigins !== undefined) {
      if (!Array.isArray(o.allowedOrigins)) throw new ConfigError(`${at}: "allowedOrigins" must be an array of origins`);
      allowedOrigins = o.allowedOrigins.map((x, j) => {
        const n = typeof x === 'string' ? normaliseOrigin(x) : null;
        if (n === null) throw new ConfigError(`${at}.allowedOrigins[${j}]: must be an origin scheme://host[:port] with http or https`);
        return n;
      });
    }
    const keyDigest = sha256(apiKey);
    if (seen.has(keyDigest)) throw new ConfigError(`${at}: the same apiKey is used by two merchants`);
    seen.add(keyDigest);
    return {
      id: merchantIdOf(keyDigest),
      name,
      storeName,
      keyDigest,
      keyMode,
      variant: o.variant,
      webhookUrl,
      webhookSecret,
      active: o.active ?? true,
      creditLimitCentimes,
      allowedOrigins,
    };
  });
}

/** Parses the text of a `--merchants` file. */
export function parseMerchantsFile(text: string, file: string): MerchantConfig[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${file}: not valid JSON (${(e as Error).message})`);
  }
  return buildMerchants(data, file, MIN_FILE_KEY_CHARS);
}

/**
 * ADR-018: every merchant's webhook URL must pass the URL policy of the server's mode
 * (https only in production, no loopback/private/link-local/metadata address; plain
 * http only for loopback in the sandbox). Throws a ConfigError naming the merchant.
 */
export function checkMerchantWebhookUrls(merchants: readonly MerchantConfig[], mode: Mode): void {
  for (const m of merchants) {
    if (m.webhookUrl === null) continue;
    const verdict = checkWebhookUrl(m.webhookUrl, mode);
    if (!verdict.ok) throw new ConfigError(`merchant "${m.name}": "webhookUrl" ${verdict.reason}`);
  }
}

export function serverConfig(p: Partial<ServerConfig> & { merchants?: MerchantConfig[] } = {}): ServerConfig {
  const mode = p.mode ?? 'sandbox';
  const merchants = p.merchants ?? buildMerchants(DEMO_MERCHANTS);
  checkMerchantWebhookUrls(merchants, mode);
  return {
    mode,
    paymentWindowSeconds: p.paymentWindowSeconds ?? defaultPaymentWindowSeconds,
    merchants,
    publicBaseUrl: p.publicBaseUrl,
    authFailureLimit: p.authFailureLimit,
    sweepIntervalMs: p.sweepIntervalMs,
    log: p.log,
  };
}
