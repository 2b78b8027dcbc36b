/** The go-live report for the terminal, as JSON, and as one self-contained HTML page (no script, inline style only). */
import { escapeHtml } from '../lib/html.ts';
import { GROUP_TITLES, type CertifyReport, type ItemGroup, type Verdict } from './checklist.ts';

const MARK: Record<Verdict, string> = { pass: 'PASS', fail: 'FAIL', not_observed: 'NOT OBSERVED' };

function byGroup(r: CertifyReport): [ItemGroup, CertifyReport['items']][] {
  const groups = new Map<ItemGroup, CertifyReport['items']>();
  for (const i of r.items) {
    let g = groups.get(i.group);
    if (!g) groups.set(i.group, (g = []));
    g.push(i);
  }
  return [...groups];
}

/** Plain text, one line per item and its finding; a failed item names its guide section. */
export function textReport(r: CertifyReport): string {
  const lines = [`PayLater go-live check of ${r.baseUrl}${r.webhookUrl ? ` (webhook URL ${r.webhookUrl})` : ''}`, ''];
  for (const [group, items] of byGroup(r)) {
    lines.push(GROUP_TITLES[group]);
    for (const i of items) {
      lines.push(`  ${MARK[i.verdict].padEnd(12)} ${i.title}`);
      lines.push(`               ${i.seen}`);
      if (i.verdict !== 'pass') lines.push(`               fix: ${i.guide}`);
    }
    lines.push('');
  }
  lines.push(
    `${r.summary.pass} passed, ${r.summary.fail} failed, ${r.summary.not_observed} not observed: ${r.ready ? 'ready to go live' : 'not ready to go live'}`,
  );
  return `${lines.join('\n')}\n`;
}

export function jsonReport(r: CertifyReport): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1b1f24}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #d0d7de;padding:.5rem;text-align:left;vertical-align:top}
.v{font-weight:600;white-space:nowrap}.pass{color:#1a7f37}.fail{color:#cf222e}.not_observed{color:#9a6700}
.summary{padding:.75rem 1rem;border-radius:6px;background:#f6f8fa}`;

/** One page, no external resource: inline CSS, no script (the report can be mailed or attached as is). */
export function htmlReport(r: CertifyReport): string {
  const sections = byGroup(r)
    .map(
      ([group, items]) => `<h2>${escapeHtml(GROUP_TITLES[group])}</h2>
<table><thead><tr><th>Verdict</th><th>Item</th><th>What was seen</th><th>Guide</th></tr></thead><tbody>
${items
  .map(
    (i) =>
      `<tr data-item="${escapeHtml(i.id)}" data-verdict="${i.verdict}"><td class="v ${i.verdict}">${MARK[i.verdict]}</td><td>${escapeHtml(i.title)}</td><td>${escapeHtml(i.seen)}</td><td><a href="${escapeHtml(i.guide)}">how to fix</a></td></tr>`,
  )
  .join('\n')}
</tbody></table>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>PayLater go-live check</title><style>${STYLE}</style></head>
<body><h1>PayLater go-live check</h1>
<p>Sandbox <code>${escapeHtml(r.baseUrl)}</code>${r.webhookUrl ? `, webhook URL <code>${escapeHtml(r.webhookUrl)}</code>` : ''}; from ${escapeHtml(r.startedAt)} to ${escapeHtml(r.finishedAt)}.</p>
<p class="summary"><strong>${r.ready ? 'Ready to go live.' : 'Not ready to go live.'}</strong> ${r.summary.pass} passed, ${r.summary.fail} failed, ${r.summary.not_observed} not observed.</p>
${sections}
</body></html>
`;
}
