import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * Where the kernel draws ephemeral ports from (Linux's `ip_local_port_range`; 32768 elsewhere,
 * below macOS's and Windows' ranges too).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 10_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

const BAND = 1024;
const BANDS = 8;
const low = ephemeralLow() - BAND * BANDS;
// One band per vitest worker (VITEST_POOL_ID counts from 1), so two workers never pick alike.
const band = (Number(process.env.VITEST_POOL_ID ?? process.pid) || 0) % BANDS;
let next = Math.floor(Math.random() * BAND);

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * A TCP port on 127.0.0.1, free now and out of reach of outgoing connections later.
 *
 * A port from `listen(0)` is ephemeral: the kernel hands the same range to every outgoing
 * connection as its local port. A test that learns such a port, closes it and listens on it
 * again later (a webhook receiver whose URL a merchant registered first) found it taken in
 * between by some connection of another test (CI: `EADDRINUSE`). So the port comes from
 * below the ephemeral range, from this worker's band, and is checked bindable.
 */
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < BAND; tries++) {
    const port = low + band * BAND + (next++ % BAND);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${low + band * BAND}–${low + band * BAND + BAND - 1}`);
}
