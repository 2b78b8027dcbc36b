/**
 * The one Markdown renderer of the docs: markdown-it (CommonMark, plus GFM tables and strikethrough)
 * for the guides, spec/DECISIONS.md and every `description` taken from the spec.
 * Safety: raw HTML is off (shown as text); a link is kept only when its target is relative, http(s)
 * or mailto, otherwise only its text is shown; images are off (nothing is fetched at view time);
 * no inline style is emitted (table alignment becomes a class).
 * Docs additions: headings get ids (slugs, de-duplicated); a fenced code block becomes a figure
 * captioned from its info string (`json op=createSession part=200 variant=2`) and is returned with
 * its info and line, for guide-blocks.ts; an unclosed fence is an error, not the rest of the file.
 */
import MarkdownIt from 'markdown-it';
import type { MarkdownIt as Md, StateCore, Token } from 'markdown-it';

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

type DocsEnv = {
  headings: Heading[];
  codeBlocks: CodeBlock[];
  usedIds: Map<string, number>;
};

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** A link target the docs may point at: relative (not protocol-relative), http(s) or mailto. */
export function isSafeHref(target: string): boolean {
  const t = target.trim();
  if (/^(https?:|mailto:)/i.test(t)) return true;
  if (/^[a-z][a-z0-9+.-]*:/i.test(t)) return false; // javascript:, data:, vbscript:, file:, …
  return !t.startsWith('//') && !t.startsWith('\\'); // protocol-relative leaves the site
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

/** The plain text of inline tokens (markup dropped, code kept as its text). */
function inlineText(tokens: readonly Token[]): string {
  return tokens
    .map((t) => (t.type === 'softbreak' || t.type === 'hardbreak' ? ' ' : t.children ? inlineText(t.children) : t.content))
    .join('');
}

/** Core rule: unwraps every link whose target is not safe (its text stays, as text). */
function safeLinks(state: StateCore): void {
  for (const block of state.tokens) {
    const children = block.children;
    if (!children) continue;
    const kept: Token[] = [];
    let dropping = false;
    for (const t of children) {
      if (t.type === 'link_open' && !isSafeHref(String(t.attrGet('href') ?? ''))) {
        dropping = true;
        continue;
      }
      if (t.type === 'link_close' && dropping) {
        dropping = false;
        continue;
      }
      kept.push(t);
    }
    block.children = kept;
  }
}

/** Core rule: heading ids, and the list of headings and fenced code blocks (in env). */
function collect(state: StateCore): void {
  const env = state.env as Partial<DocsEnv>;
  if (!env.headings || !env.codeBlocks || !env.usedIds) return; // renderInline: nothing to collect
  const lines = state.src.split('\n');
  state.tokens.forEach((t, i) => {
    if (t.type === 'heading_open') {
      const text = inlineText(state.tokens[i + 1]?.children ?? []);
      let id = slugify(text) || 'section';
      const n = env.usedIds?.get(id) ?? 0;
      env.usedIds?.set(id, n + 1);
      if (n > 0) id = `${id}-${n}`;
      t.attrSet('id', id);
      env.headings?.push({ level: Number(t.tag.slice(1)), text, id });
    }
    if (t.type === 'fence' && t.map) {
      const [open, end] = t.map;
      const last = lines[end - 1] ?? '';
      const closing = new RegExp(`^[\\s>]*\\${t.markup[0]}{${t.markup.length},}\\s*$`);
      if (end - 1 <= open || !closing.test(last)) throw new Error(`markdown: unclosed code fence opened on line ${open + 1}`);
      const info = t.info.trim();
      env.codeBlocks?.push({ lang: info.split(/\s+/)[0] ?? '', info, code: t.content.replace(/\n$/, ''), line: open + 1 });
    }
  });
}

function createRenderer(): Md {
  const md = new MarkdownIt('default', { html: false, linkify: false, typographer: false });
  md.disable('image');
  // Links are parsed whatever their target, then the unsafe ones are unwrapped by `safeLinks`,
  // so a refused target shows as its label rather than as raw Markdown.
  md.validateLink = () => true;
  md.core.ruler.push('docs_safe_links', safeLinks);
  md.core.ruler.push('docs_collect', collect);
  const rules = md.renderer.rules;
  rules.softbreak = () => ' ';
  rules.table_open = () => '<div class="table-wrap"><table>\n';
  rules.table_close = () => '</table></div>\n';
  const cell: NonNullable<(typeof rules)[string]> = (tokens, idx, options, _env, self) => {
    const t = tokens[idx] as Token;
    const align = /text-align:(\w+)/.exec(String(t.attrGet('style') ?? ''))?.[1];
    t.attrs = (t.attrs ?? []).filter(([name]) => name !== 'style');
    if (align) t.attrJoin('class', `align-${align}`);
    if (t.tag === 'th') t.attrSet('scope', 'col');
    return self.renderToken(tokens, idx, options);
  };
  rules.th_open = cell;
  rules.td_open = cell;
  rules.fence = (tokens, idx) => {
    const t = tokens[idx] as Token;
    const info = t.info.trim();
    const lang = info.split(/\s+/)[0] ?? '';
    const caption = captionOf(info);
    const esc = md.utils.escapeHtml;
    return (
      `<figure class="code"${caption ? ` data-info="${esc(caption)}"` : ''}>` +
      (caption ? `<figcaption>${esc(caption)}</figcaption>` : '') +
      `<pre><code${lang ? ` class="language-${esc(lang)}"` : ''}>${esc(t.content.replace(/\n$/, ''))}</code></pre></figure>\n`
    );
  };
  return md;
}

const md = createRenderer();

/** A Markdown document (a guide, DECISIONS.md, a multi-paragraph description) → HTML. */
export function renderMarkdown(source: string): RenderResult {
  const env: DocsEnv = { headings: [], codeBlocks: [], usedIds: new Map() };
  const html = md.render(source.replace(/\r\n?/g, '\n'), env);
  return { html, headings: env.headings, codeBlocks: env.codeBlocks };
}

/** One line of Markdown (a `description` cell, a summary) → inline HTML, no paragraph around it. */
export function renderInline(text: string): string {
  return md.renderInline(text, {});
}

/** Markdown → plain text, for places that cannot hold markup (SVG `<title>`, attributes). */
export function markdownText(text: string): string {
  return md
    .parseInline(text, {})
    .map((t: Token) => inlineText(t.children ?? []))
    .join(' ');
}
