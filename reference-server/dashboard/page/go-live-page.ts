/**
 * Script of the dashboard's go-live page `/dashboard/go-live`: runs `paylater
 * certify`'s checklist on the server (`POST /dashboard/go-live/run`) with the test key the
 * dashboard keeps in this tab's sessionStorage, shows each item with what was seen and its
 * guide link, and offers the self-contained HTML report as a download. No inline script.
 */

interface Item {
  id: string;
  group: string;
  title: string;
  verdict: 'pass' | 'fail' | 'not_observed';
  seen: string;
  guide: string;
}
interface Run {
  report: { items: Item[]; summary: Record<string, number>; ready: boolean };
  html: string;
}

const KEY = 'paylater.dashboard.key';
const MARK = { pass: 'PASS', fail: 'FAIL', not_observed: 'NOT OBSERVED' } as const;
const el = <T extends HTMLElement = HTMLElement>(id: string): T => {
  const e = document.getElementById(id);
  if (!e) throw new Error(`#${id} missing`);
  return e as T;
};
function say(text: string, error = false): void {
  el('status').textContent = text;
  el('status').className = error ? 'error' : '';
}
let download: string | null = null;

function cell(tr: HTMLTableRowElement, text: string, cls?: string): HTMLTableCellElement {
  const td = tr.insertCell();
  td.textContent = text;
  if (cls) td.className = cls;
  return td;
}

function show(run: Run): void {
  const body = el<HTMLTableElement>('items').tBodies[0]!;
  body.replaceChildren();
  for (const i of run.report.items) {
    const tr = body.insertRow();
    tr.dataset.item = i.id;
    tr.dataset.verdict = i.verdict;
    cell(tr, MARK[i.verdict], `verdict ${i.verdict}`);
    cell(tr, i.title);
    cell(tr, i.seen);
    const a = document.createElement('a');
    a.href = i.guide;
    a.textContent = 'how to fix';
    tr.insertCell().append(a);
  }
  const s = run.report.summary;
  el('summary').textContent =
    `${run.report.ready ? 'Ready to go live.' : 'Not ready to go live.'} ${s.pass} passed, ${s.fail} failed, ${s.not_observed} not observed.`;
  if (download) URL.revokeObjectURL(download);
  download = URL.createObjectURL(new Blob([run.html], { type: 'text/html' }));
  const link = el<HTMLAnchorElement>('download');
  link.href = download;
  link.hidden = false;
}

async function run(e: Event): Promise<void> {
  e.preventDefault();
  const key = sessionStorage.getItem(KEY) ?? el<HTMLInputElement>('key').value.trim();
  if (!key) return say('Type your test key first.', true);
  sessionStorage.setItem(KEY, key);
  const observe = Number(el<HTMLInputElement>('observe').value || '0');
  const webhookUrl = el<HTMLInputElement>('webhook-url').value.trim();
  say(observe > 0 ? `Checking; observing your integration for ${observe} s: run a checkout now…` : 'Checking…');
  el<HTMLButtonElement>('run').disabled = true;
  try {
    const res = await fetch('/dashboard/go-live/run', {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        webhookUrl: webhookUrl || null,
        observeSeconds: observe,
        resilience: el<HTMLInputElement>('resilience').checked,
      }),
    });
    const json = (await res.json()) as Run & { error?: { message?: string } };
    if (!res.ok) return say(json.error?.message ?? `The check failed (${res.status})`, true);
    show(json);
    say('Done.');
  } catch (err) {
    say(`The check failed: ${String(err)}`, true);
  } finally {
    el<HTMLButtonElement>('run').disabled = false;
  }
}

document.addEventListener('DOMContentLoaded', () => {
  if (sessionStorage.getItem(KEY)) el('key-row').hidden = true;
  el('check').addEventListener('submit', (e) => void run(e));
});
