import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  assertWebhookUrl,
  checkWebhookUrl,
  classifyIp,
  parseIPv4,
  parseIPv6,
  pinnedLookup,
  resolveAllowed,
  WebhookUrlError,
  type AddressClass,
  type Resolver,
  type UrlRefusal,
} from './url-policy.ts';

describe('parseIPv4 (inet_aton forms)', () => {
  const table: Array<[string, number | null]> = [
    ['127.0.0.1', 0x7f000001],
    ['2130706433', 0x7f000001],
    ['017700000001', 0x7f000001],
    ['0x7f000001', 0x7f000001],
    ['0x7F.1', 0x7f000001],
    ['0177.0.0.1', 0x7f000001],
    ['0177.0.1', 0x7f000001],
    ['127.1', 0x7f000001],
    ['127.0.1', 0x7f000001],
    ['127.0.0.1.', 0x7f000001],
    ['0', 0],
    ['0x', 0],
    ['10.0x10.0.1', 0x0a100001],
    ['255.255.255.255', 0xffffffff],
    ['4294967295', 0xffffffff],
    ['4294967296', null],
    ['256.0.0.1', null],
    ['127.0.0.256', null],
    ['127.16777216', null],
    ['08.0.0.1', null],
    ['1.2.3.4.5', null],
    ['', null],
    ['a.b.c.d', null],
    ['example.com', null],
    ['1..2', null],
    ['-1.0.0.0', null],
  ];
  it.each(table)('%s -> %s', (text, want) => {
    expect(parseIPv4(text)).toBe(want);
  });
});

describe('parseIPv6', () => {
  const table: Array<[string, number[] | null]> = [
    ['::1', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['[::1]', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['::', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['::ffff:127.0.0.1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['::ffff:7f00:1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['0:0:0:0:0:ffff:169.254.169.254', [0, 0, 0, 0, 0, 0xffff, 0xa9fe, 0xa9fe]],
    ['fe80::1%eth0', [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
    ['2001:db8::8a2e:370:7334', [0x2001, 0xdb8, 0, 0, 0, 0x8a2e, 0x370, 0x7334]],
    ['1:2:3:4:5:6:7:8', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['1:2:3:4:5:6:7:8:9', null],
    ['1::2::3', null],
    ['1:2:3:4:5:6:7::8', null],
    ['::ffff:300.0.0.1', null],
    ['12345::', null],
    ['127.0.0.1', null],
    ['g::1', null],
  ];
  it.each(table)('%s', (text, want) => {
    expect(parseIPv6(text)).toEqual(want);
  });
});

describe('classifyIp', () => {
  const table: Array<[string, AddressClass | null]> = [
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['2130706433', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['0x7f.1', 'loopback'],
    ['127.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['2002:7f00:1::', 'loopback'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['167772161', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['192.168.1.1', 'private'],
    ['0xc0a80101', 'private'],
    ['100.64.0.1', 'private'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['fec0::1', 'private'],
    ['169.254.0.1', 'link-local'],
    ['169.254.255.255', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['169.254.169.254', 'metadata'],
    ['2852039166', 'metadata'],
    ['0xa9fea9fe', 'metadata'],
    ['0251.0376.0251.0376', 'metadata'],
    ['::ffff:169.254.169.254', 'metadata'],
    ['::ffff:a9fe:a9fe', 'metadata'],
    ['169.254.170.2', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['192.0.0.192', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['::', 'unspecified'],
    ['::ffff:0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['134217728', 'public'],
    ['93.184.216.34', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['2002:808:808::', 'public'],
    ['example.com', null],
    ['localhost', null],
  ];
  it.each(table)('%s -> %s', (text, want) => {
    expect(classifyIp(text)).toBe(want);
  });
});

/** @checks ADR-018 */
describe('checkWebhookUrl', () => {
  type Row = [url: string, sandbox: UrlRefusal | 'ok', production: UrlRefusal | 'ok'];
  const table: Row[] = [
    // allowed everywhere
    ['https://merchant.example/webhooks/paylater', 'ok', 'ok'],
    ['https://merchant.example:8443/hook?x=1', 'ok', 'ok'],
    ['https://8.8.8.8/hook', 'ok', 'ok'],
    ['https://[2606:4700:4700::1111]/hook', 'ok', 'ok'],
    ['HTTPS://MERCHANT.EXAMPLE/', 'ok', 'ok'],
    // loopback: sandbox only (http allowed there)
    ['http://127.0.0.1:4020/webhooks', 'ok', 'blocked_address'],
    ['https://127.0.0.1/webhooks', 'ok', 'blocked_address'],
    ['http://localhost:4020/', 'ok', 'blocked_address'],
    ['http://LOCALHOST./', 'ok', 'blocked_address'],
    ['http://api.localhost/', 'ok', 'blocked_address'],
    ['http://[::1]:4020/', 'ok', 'blocked_address'],
    ['http://2130706433/', 'ok', 'blocked_address'],
    ['http://0177.0.0.1/', 'ok', 'blocked_address'],
    ['http://0x7f.1/', 'ok', 'blocked_address'],
    ['http://0x7f000001/', 'ok', 'blocked_address'],
    ['http://017700000001/', 'ok', 'blocked_address'],
    ['http://127.1/', 'ok', 'blocked_address'],
    ['http://127.0.1/', 'ok', 'blocked_address'],
    ['http://[::ffff:127.0.0.1]/', 'ok', 'blocked_address'],
    ['http://[::ffff:7f00:1]/', 'ok', 'blocked_address'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'ok', 'blocked_address'],
    // private, link-local, metadata, unspecified: refused in both modes
    ['http://10.0.0.5/', 'blocked_address', 'blocked_address'],
    ['https://10.0.0.5/', 'blocked_address', 'blocked_address'],
    ['https://167772165/', 'blocked_address', 'blocked_address'],
    ['https://172.16.0.1/', 'blocked_address', 'blocked_address'],
    ['https://172.31.0.1/', 'blocked_address', 'blocked_address'],
    ['https://192.168.0.10/', 'blocked_address', 'blocked_address'],
    ['https://0xc0.0xa8.0.1/', 'blocked_address', 'blocked_address'],
    ['https://[fd00::1]/', 'blocked_address', 'blocked_address'],
    ['https://[::ffff:10.0.0.1]/', 'blocked_address', 'blocked_address'],
    ['https://169.254.1.1/', 'blocked_address', 'blocked_address'],
    ['https://[fe80::1]/', 'blocked_address', 'blocked_address'],
    ['http://169.254.169.254/latest/meta-data/', 'blocked_address', 'blocked_address'],
    ['http://2852039166/', 'blocked_address', 'blocked_address'],
    ['http://0xa9fea9fe/', 'blocked_address', 'blocked_address'],
    ['http://0251.0376.0251.0376/', 'blocked_address', 'blocked_address'],
    ['http://[::ffff:169.254.169.254]/', 'blocked_address', 'blocked_address'],
    ['http://[fd00:ec2::254]/', 'blocked_address', 'blocked_address'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'blocked_address', 'blocked_address'],
    ['https://metadata.google.internal./', 'blocked_address', 'blocked_address'],
    ['https://100.100.100.200/', 'blocked_address', 'blocked_address'],
    ['http://0.0.0.0:4020/', 'blocked_address', 'blocked_address'],
    ['http://0/', 'blocked_address', 'blocked_address'],
    ['http://[::]/', 'blocked_address', 'blocked_address'],
    ['https://255.255.255.255/', 'blocked_address', 'blocked_address'],
    ['https://224.0.0.1/', 'blocked_address', 'blocked_address'],
    // plain http to a public host
    ['http://merchant.example/webhooks', 'https_required', 'https_required'],
    ['http://8.8.8.8/', 'https_required', 'https_required'],
    // schemes, credentials, garbage
    ['ftp://merchant.example/', 'unsupported_scheme', 'unsupported_scheme'],
    ['file:///etc/passwd', 'unsupported_scheme', 'unsupported_scheme'],
    ['gopher://127.0.0.1:6379/_INFO', 'unsupported_scheme', 'unsupported_scheme'],
    ['javascript:alert(1)', 'unsupported_scheme', 'unsupported_scheme'],
    ['data:text/plain,hi', 'unsupported_scheme', 'unsupported_scheme'],
    ['https://user:pass@merchant.example/', 'credentials', 'credentials'],
    ['https://127.0.0.1@merchant.example/', 'credentials', 'credentials'],
    ['//merchant.example/hook', 'invalid_url', 'invalid_url'],
    ['/webhooks', 'invalid_url', 'invalid_url'],
    ['', 'invalid_url', 'invalid_url'],
    ['https://merchant.example/a b', 'invalid_url', 'invalid_url'],
    ['https://merchant.example/\n', 'invalid_url', 'invalid_url'],
    ['http://999999999999/', 'invalid_url', 'invalid_url'],
    [`https://merchant.example/${'a'.repeat(2100)}`, 'invalid_url', 'invalid_url'],
  ];
  it.each(table)('%s (sandbox: %s, production: %s)', (url, sandbox, production) => {
    for (const [mode, want] of [
      ['sandbox', sandbox],
      ['production', production],
    ] as const) {
      const v = checkWebhookUrl(url, mode);
      expect({ mode, result: v.ok ? 'ok' : v.code }).toEqual({ mode, result: want });
      if (!v.ok) expect(() => assertWebhookUrl(url, mode)).toThrow(WebhookUrlError);
    }
  });

  it('normalizes the accepted URL', () => {
    expect(assertWebhookUrl('HTTPS://Merchant.Example:443/Hook', 'production')).toBe('https://merchant.example/Hook');
  });
});

describe('resolveAllowed (DNS answers checked at delivery time)', () => {
  const fakeDns =
    (answers: Record<string, Array<{ address: string; family: number }>>): Resolver =>
    async (h) => {
      const a = answers[h];
      if (!a) throw Object.assign(new Error(`ENOTFOUND ${h}`), { code: 'ENOTFOUND' });
      return a;
    };
  const dns = fakeDns({
    'public.example': [{ address: '93.184.216.34', family: 4 }],
    'rebind.example': [{ address: '127.0.0.1', family: 4 }],
    'mixed.example': [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ],
    'meta.example': [{ address: '169.254.169.254', family: 4 }],
    'v6loop.example': [{ address: '::1', family: 6 }],
    'mapped.example': [{ address: '::ffff:192.168.1.1', family: 6 }],
    'empty.example': [],
  });
  const table: Array<[string, 'ok' | 'blocked', 'ok' | 'blocked']> = [
    ['public.example', 'ok', 'ok'],
    ['rebind.example', 'ok', 'blocked'],
    ['v6loop.example', 'ok', 'blocked'],
    ['mixed.example', 'blocked', 'blocked'],
    ['meta.example', 'blocked', 'blocked'],
    ['mapped.example', 'blocked', 'blocked'],
    ['empty.example', 'blocked', 'blocked'],
    ['localhost', 'ok', 'blocked'],
    ['127.0.0.1', 'ok', 'blocked'],
    ['[::1]', 'ok', 'blocked'],
    ['10.1.1.1', 'blocked', 'blocked'],
  ];
  it.each(table)('%s (sandbox: %s, production: %s)', async (host, sandbox, production) => {
    const answers: Record<string, Array<{ address: string; family: number }>> = { localhost: [{ address: '127.0.0.1', family: 4 }] };
    const resolver: Resolver = async (h) => (h in answers ? answers[h]! : dns(h));
    for (const [mode, want] of [
      ['sandbox', sandbox],
      ['production', production],
    ] as const) {
      const got = await resolveAllowed(host, mode, resolver).then(
        () => 'ok',
        (e: unknown) => (e instanceof WebhookUrlError ? 'blocked' : `other: ${String(e)}`),
      );
      expect({ mode, got }).toEqual({ mode, got: want });
    }
  });

  it('an unknown name is a resolution error, not a policy refusal', async () => {
    await expect(resolveAllowed('nx.example', 'production', dns)).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });
});

describe('pinnedLookup connects only to the checked address (DNS rebinding)', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('reached'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((r) => server.close(() => r()));
  });

  function get(host: string, lookup: ReturnType<typeof pinnedLookup>): Promise<string> {
    return new Promise((resolve) => {
      const req = request({ host, port, path: '/', lookup, agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      });
      req.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code ?? e.message}`));
      req.end();
    });
  }

  it('a name whose answer flips from public to loopback is refused at connect time in production', async () => {
    let calls = 0;
    // first answer (e.g. at registration) is public, the answer at delivery is loopback
    const rebinding: Resolver = async () =>
      calls++ === 0 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    await expect(resolveAllowed('rebind.example', 'production', rebinding)).resolves.toHaveLength(1);
    expect(await get('rebind.example', pinnedLookup('production', rebinding))).toBe('error EBLOCKED');
  });

  it('the sandbox connects to a loopback answer', async () => {
    const loop: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    expect(await get('receiver.example', pinnedLookup('sandbox', loop))).toBe('reached');
  });

  it('production refuses a name that resolves to loopback', async () => {
    const loop: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    expect(await get('receiver.example', pinnedLookup('production', loop))).toBe('error EBLOCKED');
  });
});
