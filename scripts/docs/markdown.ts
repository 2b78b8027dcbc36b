/**
 * A small, safe Markdown renderer for the docs' own sources (spec/DECISIONS.md, spec/guides/*.md).
 * Supports what those files use: ATX headings, paragraphs, `-`/`*` and `1.` lists (one level, with
 * indented continuation lines), fenced code blocks (info string kept as data attributes), pipe
 * tables, blockquotes, `inline code`, **bold**, *italic*, and [links](target).
 * Safety: every piece of text is HTML-escaped; raw HTML in the source is shown as text; link targets
 * are kept only when relative or http(s)/mailto (anything else, e.g. `javascript:`, becomes plain text).
 */
import { escapeHtml } from './html.ts';

export interface CodeBlock {
  lang: string;
  info: string;
  code: string;
  /** 1-based line of the opening fence. */
  line: number;
}

export interface Heading {
  level: number;
  text: string;
  id: string;
}

export interface RenderResult {
  html: string;
  headings: Heading[];
  codeBlocks: CodeBlock[];
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function safeHref(target: string): string | null {
  const t = target.trim();
  if (/^(https?:|mailto:)/i.test(t)) return t;
  if (/^[a-z][a-z0-9+.-]*:/i.test(t)) return null; // javascript:, data:, vbscript:, …
  if (t.startsWith('//')) return null; // protocol-relative: leaves the site
  return t;
}

/** Inline Markdown → HTML. Code spans are cut out first so their content is never interpreted. */
export function renderInline(text: string): string {
  const parts: string[] = [];
  const re = /`([^`]+)`/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    parts.push(renderSpan(text.slice(last, m.index)));
    parts.push(`<code>${escapeHtml(m[1])}</code>`);
    last = m.index + m[0].length;
  }
  parts.push(renderSpan(text.slice(last)));
  return parts.join('');
}

function renderSpan(text: string): string {
  // Links first (on raw text), then emphasis on the escaped remainder.
  const out: string[] = [];
  const re = /\[([^\]]+)\]\(([^)\s]+)\)/g;
  let last = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(emphasis(escapeHtml(text.slice(last, m.index))));
    const href = safeHref(m[2] ?? '');
    const label = emphasis(escapeHtml(m[1]));
    out.push(href === null ? label : `<a href="${escapeHtml(href)}">${label}</a>`);
    last = m.index + m[0].length;
  }
  out.push(emphasis(escapeHtml(text.slice(last))));
  return out.join('');
}

function emphasis(escaped: string): string {
  return escaped
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/(^|[^*\w])\*([^*\s][^*]*)\*(?!\w)/g, '$1<em>$2</em>');
}

function splitRow(line: string): string[] {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|')) s = s.slice(0, -1);
  // A `|` inside a code span does not split cells.
  const cells: string[] = [];
  let cur = '';
  let inCode = false;
  for (const ch of s) {
    if (ch === '`') inCode = !inCode;
    if (ch === '|' && !inCode) {
      cells.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  cells.push(cur.trim());
  return cells;
}

/** A readable caption from a fence info string such as `json op=createSession part=200 variant=2`. */
function captionOf(info: string): string {
  const kv = Object.fromEntries(
    info
      .split(/\s+/)
      .slice(1)
      .filter((t) => t.includes('='))
      .map((t) => [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)]),
  );
  const variant = kv.variant ? ` · Variant ${kv.variant}` : '';
  if (kv.op) return `${kv.op} · ${kv.part === 'request' ? 'request body' : `response ${kv.part ?? ''}`}${variant}`;
  if (kv.webhook) return `webhook ${kv.webhook} · body`;
  return info.split(/\s+/).slice(1).join(' ');
}

export function renderMarkdown(source: string): RenderResult {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const html: string[] = [];
  const headings: Heading[] = [];
  const codeBlocks: CodeBlock[] = [];
  const usedIds = new Map<string, number>();
  let i = 0;

  const isBlockStart = (l: string): boolean =>
    /^(#{1,6})\s/.test(l) || /^```/.test(l) || /^\s*([-*]|\d+\.)\s+/.test(l) || /^\s*\|/.test(l) || /^>\s?/.test(l);

  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (line.trim() === '') {
      i++;
      continue;
    }
    const fence = /^```\s*(.*)$/.exec(line);
    if (fence) {
      const info = (fence[1] ?? '').trim();
      const lang = info.split(/\s+/)[0] ?? '';
      const start = i + 1;
      const body: string[] = [];
      i++;
      while (i < lines.length && !/^```\s*$/.test(lines[i] ?? '')) body.push(lines[i++] ?? '');
      if (i >= lines.length) throw new Error(`markdown: unclosed code fence opened on line ${start}`);
      i++; // closing fence
      const codeText = body.join('\n');
      codeBlocks.push({ lang, info, code: codeText, line: start });
      const caption = captionOf(info);
      html.push(
        `<figure class="code"${caption ? ` data-info="${escapeHtml(caption)}"` : ''}>` +
          (caption ? `<figcaption>${escapeHtml(caption)}</figcaption>` : '') +
          `<pre><code${lang ? ` class="language-${escapeHtml(lang)}"` : ''}>${escapeHtml(codeText)}</code></pre></figure>`,
      );
      continue;
    }
    const heading = /^(#{1,6})\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      const level = (heading[1] ?? '#').length;
      const text = heading[2] ?? '';
      let id = slugify(text) || 'section';
      const n = usedIds.get(id) ?? 0;
      usedIds.set(id, n + 1);
      if (n > 0) id = `${id}-${n}`;
      headings.push({ level, text, id });
      html.push(`<h${level} id="${escapeHtml(id)}">${renderInline(text)}</h${level}>`);
      i++;
      continue;
    }
    if (/^\s*\|/.test(line) && /^\s*\|?\s*:?-{3,}/.test(lines[i + 1] ?? '')) {
      const head = splitRow(line);
      i += 2;
      const rows: string[][] = [];
      while (i < lines.length && /^\s*\|/.test(lines[i] ?? '')) rows.push(splitRow(lines[i++] ?? ''));
      html.push(
        `<div class="table-wrap"><table><thead><tr>${head.map((h) => `<th scope="col">${renderInline(h)}</th>`).join('')}</tr></thead><tbody>` +
          rows.map((r) => `<tr>${head.map((_h, k) => `<td>${renderInline(r[k] ?? '')}</td>`).join('')}</tr>`).join('') +
          `</tbody></table></div>`,
      );
      continue;
    }
    if (/^>\s?/.test(line)) {
      const quote: string[] = [];
      while (i < lines.length && /^>\s?/.test(lines[i] ?? '')) quote.push((lines[i++] ?? '').replace(/^>\s?/, ''));
      html.push(`<blockquote>${renderMarkdown(quote.join('\n')).html}</blockquote>`);
      continue;
    }
    const item = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(line);
    if (item) {
      const ordered = /\d/.test(item[2] ?? '');
      const items: string[] = [];
      while (i < lines.length) {
        const m = /^(\s*)([-*]|\d+\.)\s+(.*)$/.exec(lines[i] ?? '');
        if (!m || /\d/.test(m[2] ?? '') !== ordered) break;
        let text = m[3] ?? '';
        i++;
        while (i < lines.length && /^\s{2,}\S/.test(lines[i] ?? '') && !/^\s*([-*]|\d+\.)\s+/.test(lines[i] ?? '')) {
          text += ` ${(lines[i++] ?? '').trim()}`;
        }
        items.push(`<li>${renderInline(text)}</li>`);
      }
      html.push(ordered ? `<ol>${items.join('')}</ol>` : `<ul>${items.join('')}</ul>`);
      continue;
    }
    const para: string[] = [line.trim()];
    i++;
    while (i < lines.length && (lines[i] ?? '').trim() !== '' && !isBlockStart(lines[i] ?? '')) para.push((lines[i++] ?? '').trim());
    html.push(`<p>${renderInline(para.join(' '))}</p>`);
  }
  return { html: html.join('\n'), headings, codeBlocks };
}
