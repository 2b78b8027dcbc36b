/**
 * Draws the transaction state machine (`stateMachine` of generated/contract.ts, i.e. the
 * `x-state-machine` of TransactionStatus) as a self-contained SVG: one node per state, one arrow per
 * transition labelled with its trigger (operationId, who acts) and the webhook it emits, and the
 * rejected moves listed under the diagram. Layout is computed here: columns by distance from the
 * start, parallel arrows fanned out, labels pushed apart so none overlaps another.
 */
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

const START = '(start)';
const NODE_W = 170;
const NODE_H = 48;
const START_W = 24;
const GAP_X = 360;
const ROW_H = 165;
const MARGIN = 24;
const CHAR_W = 6.7; // 11px monospace
const LINE_H = 14;

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

function overlaps(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

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

export function renderStateMachineSvg(sm: StateMachineInput): string {
  const states = Object.keys(sm.states);
  const edges = edgesOf(sm);
  // Column of each node: BFS distance from the start.
  const depth = new Map<string, number>([[START, 0]]);
  const queue = [START];
  while (queue.length) {
    const n = queue.shift() as string;
    for (const e of edges.filter((x) => x.from === n)) {
      if (!depth.has(e.to)) {
        depth.set(e.to, (depth.get(n) ?? 0) + 1);
        queue.push(e.to);
      }
    }
  }
  let maxDepth = Math.max(...depth.values());
  for (const s of states) if (!depth.has(s)) depth.set(s, ++maxDepth); // unreachable states still drawn
  const columns: string[][] = [];
  for (const n of [START, ...states]) (columns[depth.get(n) ?? 0] ??= []).push(n);
  const tallest = Math.max(...columns.map((c) => c.length));
  const colX: number[] = [];
  let x = MARGIN;
  columns.forEach((_c, i) => {
    colX[i] = x;
    x += (i === 0 ? START_W : NODE_W) + GAP_X;
  });
  const width = x - GAP_X + MARGIN;
  const pos = new Map<string, Box>();
  columns.forEach((col, i) => {
    const offset = ((tallest - col.length) * ROW_H) / 2;
    col.forEach((n, r) => {
      const cy = MARGIN + 20 + offset + r * ROW_H + NODE_H / 2;
      const w = n === START ? START_W : NODE_W;
      const h = n === START ? START_W : NODE_H;
      pos.set(n, { x: colX[i] ?? MARGIN, y: cy - h / 2, w, h });
    });
  });

  // Edges: ports fanned out between the same pair of nodes.
  const pairCount = new Map<string, number>();
  for (const e of edges) pairCount.set(`${e.from}>${e.to}`, (pairCount.get(`${e.from}>${e.to}`) ?? 0) + 1);
  const pairSeen = new Map<string, number>();
  const labels: Array<{ box: Box; anchorX: number; anchorY: number; lines: string[]; edgeIndex: number }> = [];
  const edgeSvg: string[] = [];
  edges.forEach((e, idx) => {
    const key = `${e.from}>${e.to}`;
    const k = pairSeen.get(key) ?? 0;
    pairSeen.set(key, k + 1);
    const n = pairCount.get(key) ?? 1;
    const spread = (k - (n - 1) / 2) * 16;
    const a = pos.get(e.from) as Box;
    const b = pos.get(e.to) as Box;
    const x1 = a.x + a.w;
    const y1 = a.y + a.h / 2 + spread;
    const x2 = b.x;
    const y2 = b.y + b.h / 2 + spread;
    const dx = Math.max(60, (x2 - x1) / 2);
    const c1x = x1 + dx;
    const c2x = x2 - dx;
    const d = `M ${x1} ${y1} C ${c1x} ${y1}, ${c2x} ${y2}, ${x2 - 2} ${y2}`;
    // Point at t = 0.5 of the cubic.
    const mx = 0.125 * x1 + 0.375 * c1x + 0.375 * c2x + 0.125 * x2;
    const my = 0.5 * y1 + 0.5 * y2;
    const t = e.transition;
    const lines = [`${t.trigger.operationId}`, `${t.trigger.kind} · ${t.emits ? `emits ${t.emits}` : 'no webhook'}`];
    const w = Math.max(...lines.map((l) => l.length)) * CHAR_W + 12;
    const h = lines.length * LINE_H + 8;
    labels.push({ box: { x: mx - w / 2, y: my - h / 2, w, h }, anchorX: mx, anchorY: my, lines, edgeIndex: idx });
    edgeSvg.push(
      `<g class="edge" data-transition="${escapeHtml(t.id)}" data-from="${escapeHtml(e.from)}" data-to="${escapeHtml(e.to)}" data-emits="${escapeHtml(t.emits ?? '')}">` +
        `<title>${escapeHtml(`${t.id}: ${e.from} → ${e.to} by ${t.trigger.operationId} (${t.trigger.kind}); guard: ${t.guard ?? 'none'}; ${t.emits ? `emits ${t.emits}` : 'no webhook'}`)}</title>` +
        `<path class="edge-line${t.emits ? ' emits' : ''}" d="${d}" marker-end="url(#arrow)"/></g>`,
    );
  });

  // Push labels apart: nodes and already placed labels are obstacles.
  const placed: Box[] = [...pos.values()].map((b) => ({ x: b.x - 4, y: b.y - 4, w: b.w + 8, h: b.h + 8 }));
  labels.sort((p, q) => p.box.y - q.box.y || p.box.x - q.box.x);
  for (const l of labels) {
    for (let guard = 0; guard < 200; guard++) {
      const hit = placed.find((p) => overlaps(l.box, p));
      if (!hit) break;
      l.box.y = hit.y + hit.h + 3;
    }
    placed.push(l.box);
  }
  const labelSvg = labels
    .sort((p, q) => p.edgeIndex - q.edgeIndex)
    .map((l) => {
      const moved = Math.abs(l.box.y + l.box.h / 2 - l.anchorY) > 2;
      const leader = moved
        ? `<line class="leader" x1="${l.anchorX}" y1="${l.anchorY}" x2="${l.anchorX}" y2="${l.box.y < l.anchorY ? l.box.y + l.box.h : l.box.y}"/>`
        : '';
      const text = l.lines
        .map((line, i) => `<tspan x="${l.box.x + 6}" y="${l.box.y + 4 + (i + 1) * LINE_H - 3}"${i === 0 ? ' class="trigger"' : ''}>${escapeHtml(line)}</tspan>`)
        .join('');
      const e = edges[l.edgeIndex] as Edge;
      return `<g class="edge-label" data-transition="${escapeHtml(e.transition.id)}">${leader}<rect x="${l.box.x}" y="${l.box.y}" width="${l.box.w}" height="${l.box.h}" rx="4"/><text>${text}</text></g>`;
    })
    .join('\n');

  const nodeSvg = [...pos.entries()]
    .map(([name, b]) => {
      if (name === START) {
        return `<g class="start" data-node="start"><title>creation</title><circle cx="${b.x + b.w / 2}" cy="${b.y + b.h / 2}" r="${b.w / 2}"/></g>`;
      }
      const st = sm.states[name];
      const terminal = st?.terminal ?? false;
      return (
        `<g class="node${terminal ? ' terminal' : ''}${name === sm.initial ? ' initial' : ''}" data-state="${escapeHtml(name)}">` +
        `<title>${escapeHtml(`${name}: ${st?.description ?? ''}`)}</title>` +
        `<rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" rx="10"/>` +
        (terminal ? `<rect class="inner" x="${b.x + 4}" y="${b.y + 4}" width="${b.w - 8}" height="${b.h - 8}" rx="7"/>` : '') +
        `<text x="${b.x + b.w / 2}" y="${b.y + b.h / 2 + 5}" text-anchor="middle">${escapeHtml(name)}</text></g>`
      );
    })
    .join('\n');

  const diagramBottom = Math.max(...placed.map((p) => p.y + p.h)) + 16;
  let y = diagramBottom + 10;
  const rejSvg = [`<text class="legend-title" x="${MARGIN}" y="${y}">Rejected moves (nothing changes):</text>`];
  sm.rejections.forEach((r) => {
    y += 20;
    const line = `✕ ${r.trigger.operationId} from ${r.from.join(', ')} → ${r.status} ${r.code}`;
    rejSvg.push(
      `<g class="rejection" data-trigger="${escapeHtml(r.trigger.operationId)}" data-code="${escapeHtml(r.code)}"><text x="${MARGIN}" y="${y}">${escapeHtml(line)}</text></g>`,
    );
  });
  y += 24;
  rejSvg.push(
    `<text class="legend" x="${MARGIN}" y="${y}">Double border: terminal state. Solid arrow: sends a webhook; dashed: no webhook.</text>`,
  );
  const height = y + MARGIN;
  const widthAll = Math.max(width, ...rejSvg.map(() => 0), 900);
  return `<svg xmlns="http://www.w3.org/2000/svg" class="state-machine" role="img" aria-labelledby="sm-title" viewBox="0 0 ${Math.ceil(widthAll)} ${Math.ceil(height)}" width="${Math.ceil(widthAll)}" height="${Math.ceil(height)}">
<title id="sm-title">Transaction state machine: ${escapeHtml(states.join(', '))}</title>
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z"/></marker></defs>
${edgeSvg.join('\n')}
${nodeSvg}
${labelSvg}
${rejSvg.join('\n')}
</svg>`;
}
