/**
 * Script of the sandbox dashboard `/dashboard` (ADR-045), bundled by the dashboard router
 * with esbuild on first request; no inline script (strict CSP). The test key lives in this
 * tab's sessionStorage and travels only in the X-API-Key header, never in a URL.
 */

import type { V2 } from '../../../generated/index.ts';

/** The sandbox answers' shapes, the same in both variants (types only: erased from the bundle). */
type Schemas = V2.components['schemas'];
type Tx = Schemas['PartnerTransaction'];
type Sms = Schemas['SmsMessage'];
type Delivery = Schemas['WebhookDelivery'];
type Clock = Schemas['SandboxClock'];

const KEY = 'paylater.dashboard.key';
const el = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} missing`);
  return e as T;
};
let selected: string | null = null;
/** The transactions listed (the newest `pages` pages), where the detail finds the selected one. */
let shown: Tx[] = [];
/** Pages of the list shown (each of the server's default size, the `limit` parameter's `default`). */
let pages = 1;
let streamAbort: AbortController | null = null;

const key = (): string => sessionStorage.getItem(KEY) ?? '';
function say(text: string, error = false): void {
  el('status').textContent = text;
  el('status').className = error ? 'error' : '';
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: { 'X-API-Key': key(), ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  if (!res.ok) throw new Error(json?.error ? `${json.error.code}: ${json.error.message}` : `HTTP ${res.status}`);
  return json as T;
}

function cell(text: string, cls?: string): HTMLTableCellElement {
  const c = document.createElement('td');
  c.textContent = text;
  if (cls) c.className = cls;
  return c;
}

async function loadClock(): Promise<void> {
  const c = await api<Clock>('GET', '/api/v1/sandbox/clock');
  el('clock').textContent = `Sandbox time ${c.now} (offset ${c.offsetSeconds} s)`;
}

async function loadTransactions(): Promise<void> {
  const filters = new URLSearchParams();
  const status = el<HTMLSelectElement>('filter-status').value;
  const ref = el<HTMLInputElement>('filter-ref').value.trim();
  if (status) filters.set('status', status);
  if (ref) filters.set('vendorReference', ref);
  const rows: Tx[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < pages; i++) {
    const q = new URLSearchParams(filters);
    if (cursor) q.set('cursor', cursor);
    const list: { data: Tx[]; nextCursor: string | null } = await api('GET', `/api/v1/sandbox/transactions?${q.toString()}`);
    rows.push(...list.data);
    cursor = list.nextCursor;
    if (!cursor) break;
  }
  shown = rows;
  const body = el<HTMLTableElement>('transactions').tBodies[0]!;
  body.replaceChildren();
  for (const t of rows) {
    const tr = document.createElement('tr');
    tr.dataset.id = t.id;
    if (t.id === selected) tr.className = 'selected';
    tr.append(
      cell(t.createdAt),
      cell(t.id),
      cell(t.vendorReference ?? '—'),
      cell(`${t.totalAmount.toFixed(2)} ${t.currency}`),
      cell(t.status, `status-${t.status}`),
    );
    tr.addEventListener('click', () => select(t.id));
    body.append(tr);
  }
  el('more').hidden = cursor === null;
  say(`${rows.length} transaction(s)${cursor === null ? '' : ', older ones on the next page'}`);
}

async function loadDetail(): Promise<void> {
  if (!selected) return;
  const [sms, deliveries] = await Promise.all([
    // only the selected transaction's messages and events, whatever its age (the lists page)
    api<{ data: Sms[] }>('GET', `/api/v1/sandbox/sms?transactionId=${encodeURIComponent(selected)}`),
    api<{ data: Delivery[] }>('GET', `/api/v1/sandbox/webhook-deliveries?transactionId=${encodeURIComponent(selected)}`),
  ]);
  // selected from the list, read with it (refresh loads the list first)
  const t = shown.find((x) => x.id === selected);
  if (!t) return;
  el('detail').hidden = false;
  el('detail-title').textContent = `Transaction ${t.id} — ${t.status}`;
  // only the moves x-state-machine allows from this status (each button names the statuses it moves from)
  for (const b of document.querySelectorAll<HTMLButtonElement>('#detail-actions button'))
    b.hidden = !(b.dataset.from ?? '').split(' ').includes(t.status);
  const items: Array<{ at: string; text: string; delivery?: Delivery }> = [
    { at: t.createdAt, text: `created (PENDING), ${t.totalAmount.toFixed(2)} ${t.currency}, customer ${t.customerPhone}` },
  ];
  if (t.updatedAt) items.push({ at: t.updatedAt, text: `now ${t.status}` });
  for (const m of sms.data.filter((x) => x.transactionId === t.id)) items.push({ at: m.sentAt, text: `SMS to ${m.to}: ${m.body}` });
  for (const d of deliveries.data.filter((x) => x.transactionId === t.id)) {
    items.push({ at: d.createdAt, text: `webhook ${d.event} ${d.id}: ${d.state}`, delivery: d });
    for (const a of d.attempts)
      items.push({
        at: a.at,
        text: `  attempt ${a.attempt} → ${a.status === null ? String(a.error) : `HTTP ${a.status}`} (${a.durationMs} ms)`,
      });
  }
  items.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const ol = el('timeline');
  ol.replaceChildren();
  for (const it of items) {
    const li = document.createElement('li');
    const when = document.createElement('span');
    when.className = 'muted';
    when.textContent = `${it.at} `;
    li.append(when, document.createTextNode(it.text));
    const d = it.delivery;
    if (d) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = 'Redeliver';
      b.dataset.redeliver = d.id;
      b.addEventListener(
        'click',
        () => void act(() => api('POST', `/api/v1/sandbox/webhook-deliveries/${d.id}/redeliver`), `redelivery of ${d.id} queued`),
      );
      li.append(' ', b);
    }
    ol.append(li);
  }
}

async function refresh(): Promise<void> {
  try {
    await Promise.all([loadClock(), loadTransactions().then(loadDetail)]);
  } catch (e) {
    say((e as Error).message, true);
  }
}

async function act(fn: () => Promise<unknown>, done: string): Promise<void> {
  try {
    await fn();
    await refresh();
    say(done);
  } catch (e) {
    say((e as Error).message, true);
  }
}

function select(id: string): void {
  selected = id;
  void refresh();
}

/** Live updates from the event stream (ADR-044), read with fetch so the key stays in a header. */
async function listen(): Promise<void> {
  streamAbort?.abort();
  const ac = (streamAbort = new AbortController());
  try {
    const res = await fetch('/api/v1/sandbox/events', { headers: { 'X-API-Key': key(), Accept: 'text/event-stream' }, signal: ac.signal });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buf += decoder.decode(value, { stream: true });
      const blocks = buf.split('\n\n');
      buf = blocks.pop() ?? '';
      if (blocks.some((b) => b.includes('\ndata:'))) void refresh();
    }
  } catch {
    // aborted or dropped: reconnect below unless aborted
  }
  if (!ac.signal.aborted) setTimeout(() => void listen(), 1000);
}

async function start(): Promise<void> {
  el('forget').hidden = false;
  try {
    await loadClock();
  } catch (e) {
    say((e as Error).message, true);
    return;
  }
  el('app').hidden = false;
  await refresh();
  void listen();
}

el('key-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const input = el<HTMLInputElement>('key');
  sessionStorage.setItem(KEY, input.value.trim());
  input.value = '';
  void start();
});
// A local sandbox on the built-in demo merchants lists them (the server decides: never a shared one).
for (const b of document.querySelectorAll<HTMLButtonElement>('#demo-merchants button[data-key]')) {
  b.addEventListener('click', () => {
    sessionStorage.setItem(KEY, String(b.dataset.key));
    void start();
  });
}
el('forget').addEventListener('click', () => {
  sessionStorage.removeItem(KEY);
  streamAbort?.abort();
  el('app').hidden = true;
  el('forget').hidden = true;
  say('Key forgotten.');
});
el('filters').addEventListener('submit', (ev) => {
  ev.preventDefault();
  pages = 1;
  void refresh();
});
el('more').addEventListener('click', () => {
  pages += 1;
  void refresh();
});
el('advance').addEventListener(
  'click',
  () =>
    void act(
      () => api('POST', '/api/v1/sandbox/clock/advance', { seconds: Number(el<HTMLInputElement>('advance-seconds').value) }),
      'clock advanced',
    ),
);
el('reset').addEventListener('click', () => void act(() => api('POST', '/api/v1/sandbox/reset', {}), 'sandbox reset'));
for (const b of document.querySelectorAll<HTMLButtonElement>('#detail-actions button')) {
  b.addEventListener(
    'click',
    () =>
      void act(
        () => api('POST', `/api/v1/sandbox/transactions/${String(selected)}/${String(b.dataset.action)}`),
        `${String(b.dataset.action)} done`,
      ),
  );
}
if (key()) void start();
