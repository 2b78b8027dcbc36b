import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { freePort } from './free-port.ts';

describe('freePort', () => {
  it('gives distinct bindable ports below the ephemeral range, so no outgoing connection takes them later', async () => {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    const ports = [await freePort(), await freePort(), await freePort()];
    expect(new Set(ports).size).toBe(3);
    for (const p of ports) {
      expect(p).toBeLessThan(low);
      expect(p).toBeGreaterThanOrEqual(low - 8 * 1024);
    }
  });
});
