/**
 * Webhook URL policy (ADR-018): which URLs a merchant may register and the engine may call.
 *
 * - Scheme: `http` or `https` only. Plain `http` is accepted only for loopback in the sandbox
 *   (the AsyncAPI server note; the seed: "HTTPS must be used in production"). No credentials
 *   in the URL (they would be shown in every delivery listing).
 * - Addresses: production accepts public unicast addresses only: loopback (127.0.0.0/8, ::1),
 *   private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, fec0::/10), link-local
 *   (169.254/16, fe80::/10), cloud metadata (169.254.169.254, 169.254.170.2, 100.100.100.200,
 *   192.0.0.192, fd00:ec2::254, metadata.google.internal…), unspecified (0.0.0.0/8, ::),
 *   multicast, broadcast, documentation and reserved ranges are refused, in every encoding
 *   (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`, IPv4-mapped,
 *   -compatible, NAT64 and 6to4 IPv6) and under `localhost` names. The sandbox also accepts
 *   loopback, so merchants can receive on their own machine; everything else is as production.
 * - Twice: the literal URL when it is registered and before each attempt, and every address
 *   its name resolves to at delivery time. `pinnedLookup` is the `lookup` the engine gives
 *   `http.request`: the socket connects to the very address that was checked, so a DNS answer
 *   that changes between check and connect (DNS rebinding) cannot slip through.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { specFact } from '../../lib/spec-fact.ts';

export type WebhookMode = 'sandbox' | 'production';

export type AddressClass =
  'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'unspecified' | 'multicast' | 'broadcast' | 'reserved';

export type UrlRefusal = 'invalid_url' | 'unsupported_scheme' | 'https_required' | 'credentials' | 'blocked_address';

export class WebhookUrlError extends Error {
  readonly code: UrlRefusal;
  constructor(code: UrlRefusal, message: string) {
    super(message);
    this.name = 'WebhookUrlError';
    this.code = code;
  }
}

export type UrlVerdict =
  | {
      ok: true;
      url: URL;
      /** Host without IPv6 brackets. */ host: string;
      /** Class when the host is an IP literal or a reserved name, else null (decided by DNS at delivery). */ addressClass: AddressClass | null;
    }
  | { ok: false; code: UrlRefusal; reason: string };

/**
 * The longest webhook URL, in characters: `maxLength` of `WebhookEndpointRequest`'s `url`, its one
 * statement, read once; the merchants file's URLs are held to it as the API's are.
 */
const MAX_WEBHOOK_URL_LENGTH = specFact('#/components/schemas/WebhookEndpointRequest/properties/url/maxLength', 'number');

// ---------------------------------------------------------------- IPv4

/**
 * Parses an IPv4 address in every form `inet_aton` and the WHATWG URL parser accept:
 * 1 to 4 parts, each decimal, octal (`0` prefix) or hex (`0x` prefix), the last part filling
 * the remaining bytes (`127.1`, `2130706433`, `0x7f.1`, `0177.0.0.1`), an optional trailing dot.
 * Returns the 32-bit value or null when `text` is not an IPv4 address.
 */
export function parseIPv4(text: string): number | null {
  let parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts = parts.slice(0, -1);
  if (parts.length < 1 || parts.length > 4) return null;
  const values: number[] = [];
  for (const part of parts) {
    let v: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(part)) v = part.length === 2 ? 0 : parseInt(part.slice(2), 16);
    else if (/^0[0-7]+$/.test(part)) v = parseInt(part.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(part)) v = Number(part);
    else return null;
    if (!Number.isFinite(v)) return null;
    values.push(v);
  }
  const last = values.pop() as number;
  for (const v of values) if (v > 255) return null;
  if (last >= 256 ** (4 - values.length)) return null;
  let n = 0;
  for (const v of values) n = n * 256 + v;
  return n * 256 ** (4 - values.length) + last;
}

function inV4(n: number, base: string, bits: number): boolean {
  const b = parseIPv4(base);
  if (b === null) throw new Error(base);
  const size = 2 ** (32 - bits);
  return Math.floor(n / size) === Math.floor(b / size);
}

const V4_METADATA = ['169.254.169.254', '169.254.170.2', '100.100.100.200', '192.0.0.192'];

export function classifyIPv4(n: number): AddressClass {
  if (V4_METADATA.some((m) => parseIPv4(m) === n)) return 'metadata';
  if (inV4(n, '0.0.0.0', 8)) return 'unspecified';
  if (inV4(n, '127.0.0.0', 8)) return 'loopback';
  if (inV4(n, '10.0.0.0', 8) || inV4(n, '172.16.0.0', 12) || inV4(n, '192.168.0.0', 16) || inV4(n, '100.64.0.0', 10)) return 'private';
  if (inV4(n, '169.254.0.0', 16)) return 'link-local';
  if (n === 0xffffffff) return 'broadcast';
  if (inV4(n, '224.0.0.0', 4)) return 'multicast';
  if (
    inV4(n, '240.0.0.0', 4) ||
    inV4(n, '192.0.0.0', 24) ||
    inV4(n, '192.0.2.0', 24) ||
    inV4(n, '198.51.100.0', 24) ||
    inV4(n, '203.0.113.0', 24) ||
    inV4(n, '198.18.0.0', 15) ||
    inV4(n, '192.88.99.0', 24)
  )
    return 'reserved';
  return 'public';
}

// ---------------------------------------------------------------- IPv6

/** Parses an IPv6 address (`::`, embedded dotted IPv4 tail, optional `%zone`) into 8 16-bit groups, or null. */
export function parseIPv6(text: string): number[] | null {
  let s = text;
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  if (!s.includes(':')) return null;
  const lastColon = s.lastIndexOf(':');
  const lastPart = s.slice(lastColon + 1);
  if (lastPart.includes('.')) {
    // an embedded dotted IPv4 tail ("::ffff:127.0.0.1") becomes two hex groups
    if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(lastPart)) return null;
    const octets = lastPart.split('.').map(Number);
    if (octets.some((o) => o > 255)) return null;
    const [a, b, c, d] = octets as [number, number, number, number];
    s = `${s.slice(0, lastColon + 1)}${(a * 256 + b).toString(16)}:${(c * 256 + d).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const parseGroups = (h: string): number[] | null => {
    if (h === '') return [];
    const gs = h.split(':');
    const out: number[] = [];
    for (const g of gs) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const head = parseGroups(halves[0] as string);
  if (head === null) return null;
  let groups: number[];
  if (halves.length === 2) {
    const rest = parseGroups(halves[1] as string);
    if (rest === null) return null;
    const missing = 8 - head.length - rest.length;
    if (missing < 1) return null;
    groups = [...head, ...new Array<number>(missing).fill(0), ...rest];
  } else {
    groups = head;
  }
  return groups.length === 8 ? groups : null;
}

function v4FromGroups(hi: number, lo: number): number {
  return hi * 65536 + lo;
}

export function classifyIPv6(g: number[]): AddressClass {
  const [g0, g1, g2, g3, g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  const zeroTo = (k: number) => g.slice(0, k).every((x) => x === 0);
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // IPv4-mapped ::ffff:a.b.c.d and IPv4-translated ::ffff:0:a.b.c.d
  if (zeroTo(5) && g5 === 0xffff) return classifyIPv4(v4FromGroups(g6, g7));
  if (zeroTo(4) && g4 === 0xffff && g5 === 0) return classifyIPv4(v4FromGroups(g6, g7));
  // IPv4-compatible ::a.b.c.d (deprecated, still routed by some stacks)
  if (zeroTo(6)) return classifyIPv4(v4FromGroups(g6, g7));
  // NAT64 64:ff9b::/96 and 64:ff9b:1::/48
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyIPv4(v4FromGroups(g6, g7));
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'reserved';
  // 6to4 2002:AABB:CCDD::/48 carries an IPv4 address
  if (g0 === 0x2002) return classifyIPv4(v4FromGroups(g1, g2));
  if (g0 === 0xfd00 && g1 === 0x0ec2 && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0 && g6 === 0 && g7 === 0x254) return 'metadata';
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xfe00) === 0xfc00) return 'private';
  if ((g0 & 0xffc0) === 0xfec0) return 'private';
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if (g0 === 0x2001 && g1 === 0x0db8) return 'reserved';
  if (g0 === 0x2001 && g1 === 0) return 'reserved'; // Teredo: tunnels to arbitrary IPv4
  if (g0 === 0x0100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved'; // discard-only
  return 'public';
}

/** Class of an IP literal (v4 in any encoding, v6 with or without brackets), or null when `text` is not one. */
export function classifyIp(text: string): AddressClass | null {
  const v4 = parseIPv4(text);
  if (v4 !== null) return classifyIPv4(v4);
  const v6 = parseIPv6(text);
  if (v6 !== null) return classifyIPv6(v6);
  return null;
}

// ---------------------------------------------------------------- names

const METADATA_NAMES = new Set(['metadata', 'metadata.google.internal', 'metadata.goog', 'instance-data', 'instance-data.ec2.internal']);

/** Class of a host name that is reserved whatever DNS says, or null. */
export function classifyName(hostname: string): AddressClass | null {
  const h = hostname.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === 'localhost.localdomain' || h === 'ip6-localhost' || h === 'ip6-loopback')
    return 'loopback';
  if (METADATA_NAMES.has(h)) return 'metadata';
  return null;
}

export function isClassAllowed(cls: AddressClass, mode: WebhookMode): boolean {
  return cls === 'public' || (mode === 'sandbox' && cls === 'loopback');
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * The literal check: when a merchant registers a URL and before each delivery attempt.
 * @rule ADR-018
 */
export function checkWebhookUrl(input: string, mode: WebhookMode): UrlVerdict {
  if (typeof input !== 'string' || input.length === 0) return { ok: false, code: 'invalid_url', reason: 'webhook URL is empty' };
  if (input.length > MAX_WEBHOOK_URL_LENGTH)
    return { ok: false, code: 'invalid_url', reason: `webhook URL is longer than ${MAX_WEBHOOK_URL_LENGTH} characters` };
  if (/[\s\u0000-\u001f\u007f]/.test(input))
    return { ok: false, code: 'invalid_url', reason: 'webhook URL contains whitespace or control characters' };
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return { ok: false, code: 'invalid_url', reason: 'webhook URL is not an absolute URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return {
      ok: false,
      code: 'unsupported_scheme',
      reason: `webhook URL scheme must be http or https, not ${url.protocol.replace(/:$/, '')}`,
    };
  }
  if (url.username !== '' || url.password !== '')
    return { ok: false, code: 'credentials', reason: 'webhook URL must not contain credentials' };
  const host = stripBrackets(url.hostname);
  if (host === '') return { ok: false, code: 'invalid_url', reason: 'webhook URL has no host' };
  const cls = classifyIp(host) ?? classifyName(host);
  if (cls !== null && !isClassAllowed(cls, mode)) {
    return {
      ok: false,
      code: 'blocked_address',
      reason: `webhook URL host ${host} is a ${cls} address, refused${mode === 'sandbox' && cls !== 'loopback' ? ' (the sandbox allows loopback only)' : ' in production'}`,
    };
  }
  if (url.protocol === 'http:' && !(mode === 'sandbox' && cls === 'loopback')) {
    return {
      ok: false,
      code: 'https_required',
      reason:
        mode === 'production'
          ? 'webhook URL must use https in production'
          : 'webhook URL must use https (plain http is allowed for loopback only)',
    };
  }
  return { ok: true, url, host, addressClass: cls };
}

/** Throws a `WebhookUrlError` when `input` is refused; returns the normalized URL otherwise. */
export function assertWebhookUrl(input: string, mode: WebhookMode): string {
  const v = checkWebhookUrl(input, mode);
  if (!v.ok) throw new WebhookUrlError(v.code, v.reason);
  return v.url.href;
}

// ---------------------------------------------------------------- DNS

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });

/**
 * Resolves `hostname` and checks every address it resolves to; refuses the name when any of
 * them is not allowed (a name that answers both a public and a private address is refused).
 */
export async function resolveAllowed(hostname: string, mode: WebhookMode, resolver: Resolver = systemResolver): Promise<LookupAddress[]> {
  const host = stripBrackets(hostname);
  const literal = classifyIp(host);
  if (literal !== null) {
    if (!isClassAllowed(literal, mode)) throw new WebhookUrlError('blocked_address', `${host} is a ${literal} address`);
    const family = parseIPv4(host) !== null ? 4 : 6;
    return [{ address: host, family }];
  }
  const named = classifyName(host);
  if (named !== null && !isClassAllowed(named, mode)) throw new WebhookUrlError('blocked_address', `${host} is a ${named} name`);
  const addresses = await resolver(host);
  if (addresses.length === 0) throw new WebhookUrlError('blocked_address', `${host} resolves to no address`);
  for (const a of addresses) {
    const cls = classifyIp(a.address) ?? 'reserved';
    if (!isClassAllowed(cls, mode)) throw new WebhookUrlError('blocked_address', `${host} resolves to ${a.address}, a ${cls} address`);
  }
  return addresses;
}

/**
 * A `lookup` for `http.request`/`net.connect` that resolves, checks every address, and hands
 * the checked addresses to the socket: the connection goes to an address that passed the policy.
 */
export function pinnedLookup(mode: WebhookMode, resolver: Resolver = systemResolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean; family?: number | string }, callback: (...args: unknown[]) => void) => {
    resolveAllowed(hostname, mode, resolver).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
        const usable = wanted === 0 ? addresses : addresses.filter((a) => a.family === wanted);
        if (usable.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no IPv${wanted} address`), { code: 'ENOTFOUND' }));
          return;
        }
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: unknown) => {
        const e = err instanceof WebhookUrlError ? Object.assign(new Error(err.message), { code: 'EBLOCKED' }) : err;
        callback(e);
      },
    );
  }) as unknown as LookupFunction;
}
