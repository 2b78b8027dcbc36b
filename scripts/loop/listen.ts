/**
 * `paylater listen --forward-to URL [--events a,b]`: reads the merchant's event stream
 * (`GET /api/v1/sandbox/events`, Server-Sent Events, ADR-044) and forwards each event's
 * payload to a local URL, signed (Standard Webhooks) with a listen secret derived from the
 * API key: stable across runs, printed at start. Says when the stream has answered (events
 * recorded from then on are forwarded). Prints each event and the local answer;
 * a failed forward is shown and retried; a dropped stream is reopened after the last event
 * id (`Last-Event-ID`; before any event, the stream's start point, which the sandbox sends
 * first), so no event is lost or repeated; Ctrl-C (or `signal`) stops it.
 */
import { createHmac } from 'node:crypto';
import { signTestWebhook } from '../../sdk/webhooks/verify.ts';
import { CliError, parseOptions, targetOf, type SandboxTarget } from '../../lib/sandbox-client.ts';

export const LISTEN_USAGE = `Usage: paylater listen --forward-to URL [--events NAME,…] [--base-url URL] [--api-key KEY]

Forwards the sandbox's webhook events to a local URL, signed with a listen secret (printed at start,
the same for the same API key), through the event stream: works when the sandbox cannot reach you.

Options:
  --forward-to URL   where to POST each event (e.g. http://localhost:3000/webhooks)
  --events LIST      only these events (comma-separated, e.g. transaction.approved,transaction.expired)
  --base-url URL     the sandbox (default PAYLATER_BASE_URL or http://127.0.0.1:4010)
  --api-key KEY      a test key (default PAYLATER_API_KEY)
`;

/** Forward attempts per event, and the first retry delay (doubled each time). */
const ATTEMPTS = 4;
const FIRST_RETRY_MS = 500;

/** The listen secret of `apiKey`: `whsec_` + base64(HMAC-SHA256(key, label)); the key cannot be read back from it. */
export function listenSecret(apiKey: string): string {
  return `whsec_${createHmac('sha256', apiKey).update('paylater listen v1').digest('base64')}`;
}

interface StreamEvent {
  id: string;
  event: string;
  transactionId: string;
  payload: unknown;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

/** POSTs one event to `url`, signed; retries on a network error or a non-2xx answer. */
async function forward(url: string, secret: string, e: StreamEvent, out: (s: string) => void, signal: AbortSignal): Promise<void> {
  const body = JSON.stringify(e.payload);
  for (let attempt = 1; attempt <= ATTEMPTS && !signal.aborted; attempt++) {
    const started = performance.now();
    let answer: string;
    let ok = false;
    try {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...signTestWebhook(body, secret, { id: e.id }) },
        body,
        signal,
      });
      await res.arrayBuffer();
      ok = res.ok;
      answer = `${res.status}`;
    } catch (err) {
      if (signal.aborted) return;
      answer = `failed (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message})`;
    }
    out(
      `  → POST ${url} [${answer}] ${Math.round(performance.now() - started)} ms${ok ? '' : attempt < ATTEMPTS ? `, retry ${attempt}/${ATTEMPTS - 1}` : ', giving up'}\n`,
    );
    if (ok) return;
    if (attempt < ATTEMPTS) await sleep(FIRST_RETRY_MS * 2 ** (attempt - 1), signal);
  }
}

/**
 * Reads one connection of the stream, calling `onOpen` once it has answered OK (the sandbox has
 * fixed where it starts), `onId` with the id of a block that has no data (where the stream
 * starts, sent first) and `onEvent` for each event; resolves when it ends.
 */
async function readStream(
  t: SandboxTarget,
  lastId: string | null,
  onOpen: () => void,
  onId: (id: string) => void,
  onEvent: (e: StreamEvent) => Promise<void>,
  signal: AbortSignal,
): Promise<void> {
  const res = await fetch(`${t.baseUrl}/api/v1/sandbox/events`, {
    headers: { 'X-API-Key': t.apiKey, Accept: 'text/event-stream', ...(lastId ? { 'Last-Event-ID': lastId } : {}) },
    signal,
  });
  if (!res.ok || !res.body) {
    const text = await res.text();
    let why = text;
    try {
      const err = (JSON.parse(text) as { error?: { code?: string; message?: string } }).error;
      if (err) why = `${err.code}: ${err.message}`;
    } catch {
      // not JSON
    }
    throw new CliError(`GET /api/v1/sandbox/events answered ${res.status} ${why}`, res.status === 401 ? 2 : 1);
  }
  onOpen();
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const lines = block.split('\n');
      const data = lines
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n');
      if (data) await onEvent(JSON.parse(data) as StreamEvent);
      else {
        const id = lines
          .findLast((l) => l.startsWith('id:'))
          ?.slice(3)
          .trimStart();
        if (id) onId(id);
      }
    }
  }
}

export async function runListen(argv: string[], io: { out?: (s: string) => void; signal?: AbortSignal } = {}): Promise<number> {
  const out = io.out ?? ((s: string) => process.stdout.write(s));
  const { options } = parseOptions(argv, ['forward-to', 'events', 'base-url', 'api-key'], ['help']);
  if (options.has('help')) {
    out(LISTEN_USAGE);
    return 0;
  }
  const forwardTo = options.get('forward-to');
  if (!forwardTo || !/^https?:\/\//.test(forwardTo)) throw new CliError(`--forward-to must be an http(s) URL\n\n${LISTEN_USAGE}`, 2);
  const only = options
    .get('events')
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const t = targetOf(options);
  const secret = listenSecret(t.apiKey);

  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  io.signal?.addEventListener('abort', onSignal, { once: true });

  out(`Forwarding events of ${t.baseUrl} to ${forwardTo}${only ? ` (only ${only.join(', ')})` : ''}\n`);
  out(`Your listen signing secret is ${secret} (verify the forwarded webhooks with it; it stays the same for this API key)\n`);
  let lastId: string | null = null;
  let connected = false;
  let delay = FIRST_RETRY_MS;
  try {
    while (!stop.signal.aborted) {
      try {
        await readStream(
          t,
          lastId,
          () => {
            // Printed once the stream has answered, not at start: a stream opened without a resume
            // point starts after the newest event, so an event recorded before this line is not
            // forwarded (scripts wait for this line before making events).
            if (!connected) out('Ready! Connected to the event stream: forwarding the events recorded from now on (Ctrl-C to stop)\n');
            connected = true;
          },
          (id) => (lastId = id),
          async (e) => {
            lastId = e.id;
            delay = FIRST_RETRY_MS;
            if (only && !only.includes(e.event)) return;
            out(`${new Date().toISOString()} ${e.event} ${e.id} (transaction ${e.transactionId})\n`);
            await forward(forwardTo, secret, e, out, stop.signal);
          },
          stop.signal,
        );
        if (!stop.signal.aborted) out('stream ended, reconnecting\n');
      } catch (e) {
        if (stop.signal.aborted) break;
        if (e instanceof CliError && e.exitCode === 2) throw e;
        out(`stream failed (${(e as Error).message}), reconnecting in ${delay} ms\n`);
      }
      await sleep(delay, stop.signal);
      delay = Math.min(delay * 2, 10_000);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  out('Stopped.\n');
  return 0;
}
