/**
 * The JSON blocks of the guides (spec/guides/*.md) that claim to be a request, a response or a
 * webhook body, and the JSON Schema pointer (into the bundled document) each must match.
 * Fence info: `json op=<operationId> part=request|<status> [variant=1|2]` or `json webhook=<event>`.
 */
import { renderMarkdown, type CodeBlock } from './commonmark.ts';

type Json = Record<string, unknown>;

export interface GuideBlock {
  guide: string;
  line: number;
  operationId?: string;
  webhook?: string;
  part?: string;
  variants: Array<1 | 2>;
  json: unknown;
}

function parseInfo(info: string): Record<string, string> {
  return Object.fromEntries(
    info
      .split(/\s+/)
      .slice(1)
      .filter((t) => t.includes('='))
      .map((t) => [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)]),
  );
}

export function guideBlocks(guide: string, source: string): { checked: GuideBlock[]; unchecked: CodeBlock[] } {
  const checked: GuideBlock[] = [];
  const unchecked: CodeBlock[] = [];
  for (const b of renderMarkdown(source).codeBlocks) {
    if (b.lang !== 'json') {
      unchecked.push(b);
      continue;
    }
    const info = parseInfo(b.info);
    if (!info.op && !info.webhook) throw new Error(`${guide}:${b.line}: a json block must name op=<operationId> or webhook=<event>`);
    if (info.op && !info.part) throw new Error(`${guide}:${b.line}: op= needs part=request|<status>`);
    let json: unknown;
    try {
      json = JSON.parse(b.code);
    } catch (e) {
      throw new Error(`${guide}:${b.line}: not JSON: ${(e as Error).message}`, { cause: e });
    }
    const variants: Array<1 | 2> = info.variant ? [Number(info.variant) as 1 | 2] : [1, 2];
    checked.push({ guide, line: b.line, operationId: info.op, webhook: info.webhook, part: info.part, variants, json });
  }
  return { checked, unchecked };
}

const esc = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Follows `$ref`s from `pointer`, returning the pointer of the final (non-$ref) node. */
function follow(doc: Json, pointer: string): { pointer: string; node: Json } {
  for (let i = 0; i < 32; i++) {
    const node = pointer
      .slice(2)
      .split('/')
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((acc, k) => (acc as Json | undefined)?.[k], doc) as Json | undefined;
    if (node === undefined) throw new Error(`no node at ${pointer}`);
    if (typeof node.$ref !== 'string') return { pointer, node };
    pointer = node.$ref;
  }
  throw new Error(`too many $refs from ${pointer}`);
}

/** The schema pointer of an operation's request body or response (application/json), or of a webhook body. */
export function schemaPointer(doc: Json, block: Pick<GuideBlock, 'operationId' | 'webhook' | 'part'>): string {
  if (block.webhook) {
    const item = follow(doc, `#/webhooks/${esc(block.webhook)}`);
    const body = follow(doc, `${item.pointer}/post/requestBody`);
    return `${body.pointer}/content/application~1json/schema`;
  }
  for (const [p, item] of Object.entries((doc.paths ?? {}) as Json)) {
    for (const [m, op] of Object.entries(item as Json)) {
      if ((op as Json | undefined)?.operationId !== block.operationId) continue;
      const base = `#/paths/${esc(p)}/${m}`;
      const target = block.part === 'request' ? follow(doc, `${base}/requestBody`) : follow(doc, `${base}/responses/${block.part}`);
      if (!(target.node.content as Json | undefined)?.['application/json']) {
        throw new Error(`${block.operationId} ${block.part}: no application/json content`);
      }
      return `${target.pointer}/content/application~1json/schema`;
    }
  }
  throw new Error(`operation ${block.operationId} is not in the document`);
}
