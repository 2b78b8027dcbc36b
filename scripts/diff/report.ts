/** The diff as text (terminal), JSON, markdown, and as the CHANGELOG.md section of the new versions. */
import type { DiffResult } from './engine.ts';
import { IMPACTS, type Change } from './model.ts';

function verdictLine(d: DiffResult['documents'][number]): string {
  const need = d.impact === 'none' ? 'no change' : `${d.impact} changes, needs ≥ ${d.requiredVersion}`;
  return `${d.key} ${d.baseVersion} → ${d.revisionVersion}: ${need}${d.bumped ? '' : ' ✖ not bumped'}`;
}

/** Whom a change breaks (major) or concerns (minor: they have something new to follow). */
const breaks = (c: Change) =>
  c.breaks.length === 0 ? 'breaks nothing' : `${c.impact === 'major' ? 'breaks' : 'concerns'} ${c.breaks.join(', ')}`;

export function renderText(r: DiffResult): string {
  const out = [`paylater diff: ${r.base} → ${r.revision}`, ...r.documents.map((d) => `  ${verdictLine(d)}`), ''];
  for (const c of r.changes) {
    out.push(`${c.impact.toUpperCase().padEnd(5)}  ${c.side.padEnd(9)} ${c.subject}`);
    out.push(`       ${c.message}`);
    out.push(`       at ${c.location} · ${breaks(c)} · ${c.documents.join(', ')} · ${c.rule}`);
  }
  const counts = IMPACTS.map((i) => `${r.changes.filter((c) => c.impact === i).length} ${i}`).join(', ');
  out.push(r.changes.length ? '' : 'No change.', `${counts}.`);
  for (const e of r.errors) out.push(`error: ${e}`);
  return `${out.join('\n')}\n`;
}

export function renderJson(r: DiffResult): string {
  return `${JSON.stringify(r, null, 2)}\n`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

export function renderMarkdown(r: DiffResult): string {
  const out = [
    `## Contract diff: ${r.base} → ${r.revision}`,
    '',
    '| Document | Base | Revision | Impact | Required |',
    '| --- | --- | --- | --- | --- |',
    ...r.documents.map(
      (d) => `| ${d.key} | ${d.baseVersion} | ${d.revisionVersion} | ${d.impact} | ${d.requiredVersion}${d.bumped ? '' : ' ✖'} |`,
    ),
    '',
  ];
  if (r.changes.length === 0) out.push('No change.');
  else {
    out.push('| Impact | Side | Subject | Change | Location | Breaks | Rule |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (const c of r.changes)
      out.push(
        `| ${c.impact} | ${c.side} | ${cell(c.subject)} | ${cell(c.message)} | \`${c.location}\` | ${c.breaks.join(', ') || '—'} | \`${c.rule}\` |`,
      );
  }
  for (const e of r.errors) out.push('', `**error:** ${cell(e)}`);
  return `${out.join('\n')}\n`;
}

/** The heading of the CHANGELOG.md section for the revision's versions. */
export function changelogHeading(r: DiffResult): string {
  return `## ${r.documents.map((d) => `${d.key} ${d.revisionVersion}`).join(' · ')}`;
}

/**
 * The CHANGELOG.md section of the revision: its heading, then the changes by impact. Places are
 * left out (line numbers move with unrelated edits); `paylater diff` shows them.
 */
export function changelogSection(r: DiffResult): string {
  const out = [changelogHeading(r), ''];
  for (const impact of IMPACTS) {
    const changes = r.changes.filter((c) => c.impact === impact);
    if (changes.length === 0) continue;
    out.push(`### ${impact[0]!.toUpperCase()}${impact.slice(1)}`, '');
    for (const c of changes) out.push(`- ${c.side}, ${c.subject}: ${c.message} (${c.documents.join(', ')}; ${breaks(c)})`);
    out.push('');
  }
  return `${out.join('\n').trimEnd()}\n`;
}

export const CHANGELOG_INTRO = `# Changelog

The contract's versions (\`info.version\` of each variant's OpenAPI document and of the AsyncAPI
document) and what changed in each, as \`paylater diff\` rates it. Each section is written by
\`paylater diff --changelog\` (never by hand); \`npm run lint\` fails when the section of the
current versions is missing or differs from what the diff says.
`;

/** CHANGELOG.md with the section of `r` written in: replaces the section with the same heading, or goes first. */
export function withChangelogSection(current: string | undefined, r: DiffResult): string {
  const text = current && current.trim() ? current : CHANGELOG_INTRO;
  const section = changelogSection(r);
  const heading = changelogHeading(r);
  const lines = text.split('\n');
  const start = lines.indexOf(heading);
  if (start >= 0) {
    let end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
    if (end < 0) end = lines.length;
    return `${[...lines.slice(0, start), ...section.trimEnd().split('\n'), ...(end < lines.length ? ['', ...lines.slice(end)] : [])].join('\n').trimEnd()}\n`;
  }
  const first = lines.findIndex((l) => l.startsWith('## '));
  if (first < 0) return `${text.trimEnd()}\n\n${section}`;
  return `${[...lines.slice(0, first), ...section.trimEnd().split('\n'), '', ...lines.slice(first)].join('\n').trimEnd()}\n`;
}

/** Whether CHANGELOG.md holds the section of `r` exactly as `paylater diff --changelog` writes it. */
export function changelogUpToDate(current: string | undefined, r: DiffResult): boolean {
  if (current === undefined) return false;
  return withChangelogSection(current, r) === `${current.trimEnd()}\n`;
}
