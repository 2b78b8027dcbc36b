/**
 * The transaction state machine (`stateMachine` of generated/contract.ts, i.e. the `x-state-machine`
 * of TransactionStatus) as a static SVG laid out by Graphviz `dot`, run as WebAssembly from the
 * @viz-js/viz package (nothing downloaded at build or view time, no script in the page).
 * This module only states the graph in DOT — one node per state (terminal ones with a double border),
 * one edge per (from state, transition) labelled with its trigger and the webhook it emits (solid and
 * green when it emits one, dashed grey when not) — and tags Graphviz's SVG groups with data
 * attributes and tooltips. Placement, routing and label positions are Graphviz's: it keeps edge
 * labels clear of each other, of the nodes and of the arrows.
 */
import { instance } from '@viz-js/viz';
import { markdownText } from './commonmark.ts';
import { escapeHtml } from './html.ts';

export interface SmTransition {
  id: string;
  from: readonly string[] | null;
  to: string;
  trigger: { kind: string; operationId: string };
  guard?: string;
  emits: string | null;
}

export interface SmRejection {
  from: readonly string[];
  trigger: { operationId: string };
  status: number;
  code: string;
}

export interface StateMachineInput {
  initial: string;
  states: Record<string, { terminal: boolean; description?: string }>;
  transitions: readonly SmTransition[];
  rejections: readonly SmRejection[];
}

/** The creation point: transitions with `from: null` start here. */
export const START = '(start)';

/** One edge per (from state, transition): a transition from several states gives several arrows. */
export interface Edge {
  transition: SmTransition;
  from: string;
  to: string;
}

export function edgesOf(sm: StateMachineInput): Edge[] {
  const out: Edge[] = [];
  for (const t of sm.transitions) {
    for (const f of t.from ?? [START]) out.push({ transition: t, from: f, to: t.to });
  }
  return out;
}

/** The docs palette (templates/style.css), as Graphviz attributes: the SVG is self-contained. */
const INK = '#1c2430';
const MUTED = '#5b6573';
const ACCENT = '#0b6e4f';
const ACCENT_SOFT = '#e6f3ee';
/**
 * Courier: Graphviz estimates text width from its metrics of a few named PostScript fonts (a list of
 * families falls back to Times), and Courier's, 0.6 em a character, hold for any monospace font the
 * browser picks (its SVG says `Courier,monospace`).
 */
const FONT = 'Courier';

/** Text for a DOT HTML-like label. */
const htmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
/** A DOT double-quoted string. */
const quoted = (s: string) => `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;

const nodeId = (sm: StateMachineInput, state: string) => (state === START ? 'sm_start' : `sm_n${Object.keys(sm.states).indexOf(state)}`);

/** The graph in DOT. Ids are `sm_start`, `sm_n<i>` (state i) and `sm_e<i>` (edge i of `edgesOf`). */
export function stateMachineDot(sm: StateMachineInput): string {
  const lines = [
    'digraph state_machine {',
    `  graph [rankdir=LR, nodesep=0.25, ranksep=0.3, pad=0.1, bgcolor=transparent, fontname=${quoted(FONT)}]`,
    `  node [shape=box, style="rounded,filled", fillcolor=${quoted(ACCENT_SOFT)}, color=${quoted(ACCENT)}, fontcolor=${quoted(INK)}, fontname=${quoted(FONT)}, fontsize=15, penwidth=1.6, margin="0.2,0.08"]`,
    `  edge [fontname=${quoted(FONT)}, fontsize=12, fontcolor=${quoted(INK)}, arrowsize=0.8]`,
  ];
  if (sm.transitions.some((t) => t.from === null)) {
    lines.push(
      `  sm_start [id=sm_start, shape=circle, label="", width=0.2, fixedsize=true, style=filled, fillcolor=${quoted(INK)}, color=${quoted(INK)}]`,
    );
  }
  for (const [name, st] of Object.entries(sm.states)) {
    const id = nodeId(sm, name);
    lines.push(`  ${id} [id=${id}, label=${quoted(name)}, peripheries=${st.terminal ? 2 : 1}]`);
  }
  edgesOf(sm).forEach((e, i) => {
    const t = e.transition;
    const label =
      '<<table border="0" cellborder="0" cellspacing="0" cellpadding="4">' +
      `<tr><td><b>${htmlText(t.trigger.operationId)}</b><br/>` +
      `<font color="${MUTED}">${htmlText(`${t.trigger.kind} · ${t.emits ? `emits ${t.emits}` : 'no webhook'}`)}</font></td></tr></table>>`;
    const look = t.emits ? `color=${quoted(ACCENT)}, penwidth=1.8` : `color=${quoted(MUTED)}, style=dashed, penwidth=1.3`;
    lines.push(`  ${nodeId(sm, e.from)} -> ${nodeId(sm, e.to)} [id=sm_e${i}, label=${label}, ${look}]`);
  });
  lines.push('}');
  return lines.join('\n');
}

let viz: ReturnType<typeof instance> | undefined;

/** The state machine as an `<svg class="state-machine">` element for the page (no script, no style). */
export async function renderStateMachineSvg(sm: StateMachineInput): Promise<string> {
  viz ??= instance();
  const raw = (await viz).renderString(stateMachineDot(sm), { format: 'svg_inline', engine: 'dot' });
  const edges = edgesOf(sm);
  const states = Object.keys(sm.states);
  const root = /<svg width="([\d.]+)pt" height="([\d.]+)pt"\s+viewBox="([\d. -]+)"[^>]*>/.exec(raw);
  if (!root) throw new Error('state diagram: unexpected Graphviz SVG root');
  const [w, h] = [Math.ceil(Number(root[1])), Math.ceil(Number(root[2]))];
  const title = `Transaction state machine: ${states.join(', ')}`;
  let svg = raw
    .slice(root.index)
    .replace(
      root[0],
      `<svg xmlns="http://www.w3.org/2000/svg" class="state-machine" role="img" aria-labelledby="sm-title" viewBox="${root[3]}" width="${w}" height="${h}">`,
    )
    .replace(/<title>state_machine<\/title>/, `<title id="sm-title">${escapeHtml(title)}</title>`)
    .replace(/<!--[\s\S]*?-->\n?/g, '');
  // Tag each group Graphviz made (its id is ours) and replace its title (Graphviz's is the DOT name).
  svg = svg.replace(/<g id="(sm_[a-z0-9]+)" class="(node|edge)">\n<title>[^<]*<\/title>/g, (whole, id: string) => {
    if (id === 'sm_start') return `<g id="sm_start" class="start" data-node="start">\n<title>creation</title>`;
    const node = /^sm_n(\d+)$/.exec(id);
    if (node) {
      const name = states[Number(node[1])] ?? '';
      const st = sm.states[name];
      const cls = `node${st?.terminal ? ' terminal' : ''}${name === sm.initial ? ' initial' : ''}`;
      return `<g id="${id}" class="${cls}" data-state="${escapeHtml(name)}">\n<title>${escapeHtml(`${name}: ${markdownText(st?.description ?? '')}`)}</title>`;
    }
    const e = edges[Number(/^sm_e(\d+)$/.exec(id)?.[1] ?? -1)];
    if (!e) return whole;
    const t = e.transition;
    const tip = `${t.id}: ${e.from} → ${e.to} by ${t.trigger.operationId} (${t.trigger.kind}); guard: ${markdownText(t.guard ?? 'none')}; ${t.emits ? `emits ${t.emits}` : 'no webhook'}`;
    return (
      `<g id="${id}" class="edge${t.emits ? ' emits' : ''}" data-transition="${escapeHtml(t.id)}" data-from="${escapeHtml(e.from)}" data-to="${escapeHtml(e.to)}" data-emits="${escapeHtml(t.emits ?? '')}">\n` +
      `<title>${escapeHtml(tip)}</title>`
    );
  });
  return svg.trim();
}

/** The key and the rejected moves, under the diagram (HTML: wraps at the page's width). */
export function renderStateMachineKey(sm: StateMachineInput): string {
  const rejections = sm.rejections
    .map(
      (r) =>
        `<li class="rejection" data-trigger="${escapeHtml(r.trigger.operationId)}" data-code="${escapeHtml(r.code)}"><code>${escapeHtml(r.trigger.operationId)}</code> from ${escapeHtml(r.from.join(', '))} → <code>${escapeHtml(`${r.status} ${r.code}`)}</code></li>`,
    )
    .join('\n');
  return `<p class="diagram-key">Double border: terminal state. Solid green arrow: the move sends a webhook; dashed grey: no webhook. Each arrow is labelled with the operation that triggers it and who acts.</p>
<h3 id="rejections">Rejected moves (nothing changes)</h3>
<ul class="rejections">
${rejections}
</ul>`;
}
