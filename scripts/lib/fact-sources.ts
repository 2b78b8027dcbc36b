/**
 * Where a copy of a fact is written (ADR-086): the file under spec/ and the place in it that the
 * bundled document took the copy from (`sourceOf`), and the writes of `npm run lint -- --fix`
 * (`copyWrites`, `writeCopies`), which change only each copy's scalar text.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { esc, unesc, type FactCopy } from './fact-copy.ts';
import { isJson, stableJson, textOf, type Json, type JsonKey } from '../../lib/json.ts';

/** A place in a spec/ file: the file (absolute) and the path of keys to the node. */
export interface SourcePlace {
  file: string;
  path: JsonKey[];
}

/**
 * The file under spec/ and the path in it of the node the bundled document has at `pointer`:
 * the pointer walked from the API's root file, following each file `$ref` into its file. A
 * component the bundler gathered from a file `$ref` (`#/components/<type>/<Name>`) lives in
 * `components/<type>/<Name>.yaml` (one file per component, as spec/ is laid out). Undefined when the
 * pointer cannot be walked.
 */
export function sourceOf(rootFile: string, pointer: string, read: (file: string) => unknown = readYaml): SourcePlace | undefined {
  let place: SourcePlace & { node: unknown } = { file: rootFile, path: [], node: read(rootFile) };
  const segments = pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((s) => s !== '')
    .map(unesc);
  const [top, type, name] = segments;
  const root = place.node as Json;
  if (
    top === 'components' &&
    name !== undefined &&
    ((root.components as Json | undefined)?.[type!] as Json | undefined)?.[name] === undefined
  ) {
    const file = path.join(path.dirname(rootFile), 'components', type!, `${name}.yaml`);
    if (!existsSync(file)) return undefined;
    place = { file, path: [], node: read(file) };
    segments.splice(0, 3);
  }
  for (const seg of segments) {
    place = followFileRefs(place, read);
    const node = place.node;
    const next: unknown = Array.isArray(node) ? (node as unknown[])[Number(seg)] : isJson(node) ? node[seg] : undefined;
    if (next === undefined) return undefined;
    place = { file: place.file, path: [...place.path, Array.isArray(node) ? Number(seg) : seg], node: next };
  }
  return { file: place.file, path: place.path };
}

function followFileRefs(place: SourcePlace & { node: unknown }, read: (file: string) => unknown): SourcePlace & { node: unknown } {
  for (let i = 0; i < 32 && isJson(place.node) && typeof place.node.$ref === 'string'; i++) {
    const [target, fragment = ''] = place.node.$ref.split('#') as [string, string | undefined];
    const file = target ? path.resolve(path.dirname(place.file), target) : place.file;
    let node = target ? read(file) : read(place.file);
    const keys: JsonKey[] = [];
    for (const seg of fragment.split('/').filter((s) => s !== '')) {
      const key = unesc(seg);
      node = Array.isArray(node) ? node[Number(key)] : isJson(node) ? node[key] : undefined;
      keys.push(Array.isArray(node) ? Number(key) : key);
    }
    place = { file, path: keys, node };
  }
  return place;
}

const yamlCache = new Map<string, { text: string; doc: unknown }>();
function readYaml(file: string): unknown {
  const text = readFileSync(file, 'utf8');
  const hit = yamlCache.get(file);
  if (hit && hit.text === text) return hit.doc;
  const doc: unknown = YAML.parse(text);
  yamlCache.set(file, { text, doc });
  return doc;
}

/** A copy to write: where in spec/, the value, and what it says for the log. */
export interface CopyWrite extends SourcePlace {
  from: unknown;
  to: unknown;
  /** Why: how the copy disagrees (the first variant's words, when both bundles hold the place). */
  reason: string;
}

/**
 * The writes that make every disagreeing copy agree, each place once (the two variants' bundles
 * share most files). Problems: a copy whose place in spec/ is not found, or two facts that would
 * write one place differently.
 */
export function copyWrites(
  specDir: string,
  rootFiles: Record<number, string>,
  copies: FactCopy[],
): { writes: CopyWrite[]; problems: string[] } {
  const writes = new Map<string, CopyWrite>();
  const problems: string[] = [];
  for (const c of copies) {
    if (!c.reason) continue;
    const place = sourceOf(rootFiles[c.variant]!, c.pointer);
    if (!place) {
      problems.push(`Variant ${c.variant} ${c.pointer}: ${c.reason}; no file under spec/ holds it, change it by hand`);
      continue;
    }
    const key = `${place.file}#${place.path.join('/')}`;
    const prior = writes.get(key);
    if (prior && stableJson(prior.to) !== stableJson(c.expected))
      problems.push(`${where(specDir, place)}: one copy, two facts (${textOf(prior.to)} and ${textOf(c.expected)}); give each its own`);
    else if (!prior) writes.set(key, { ...place, from: c.value, to: c.expected, reason: c.reason });
  }
  return { writes: [...writes.values()], problems };
}

/** `components/headers/RateLimit-Policy.yaml#/schema/const`: a place for messages. */
export function where(specDir: string, place: SourcePlace): string {
  return `${path.relative(specDir, place.file)}#/${place.path.map(esc).join('/')}`;
}

/**
 * Writes each copy's value into its file, changing only the scalar's text (its quoting kept,
 * comments and layout untouched); checked by reading the value back.
 */
export async function writeCopies(writes: CopyWrite[]): Promise<void> {
  const byFile = new Map<string, CopyWrite[]>();
  for (const w of writes) byFile.set(w.file, [...(byFile.get(w.file) ?? []), w]);
  for (const [file, list] of byFile) {
    let text = await readFile(file, 'utf8');
    // from the end of the file backwards, so each earlier range stays valid
    const placed = list
      .map((w) => ({ w, node: YAML.parseDocument(text, { keepSourceTokens: true }).getIn(w.path, true) }))
      .map(({ w, node }) => {
        if (!YAML.isScalar(node) || !node.range) throw new Error(`${file}: ${w.path.join('.')} is not a scalar to write`);
        return { w, node, start: node.range[0], end: node.range[1] };
      })
      .sort((a, b) => b.start - a.start);
    for (const { w, node, start, end } of placed) text = text.slice(0, start) + scalarText(w.to, node.type) + text.slice(end);
    const back = YAML.parseDocument(text);
    for (const w of list)
      if (stableJson(back.getIn(w.path)) !== stableJson(w.to))
        throw new Error(`${file}: writing ${w.path.join('.')} did not give ${textOf(w.to)}`);
    await writeFile(file, text);
  }
}

/** A scalar's YAML text in the style it was written in (plain, single or double quoted). */
function scalarText(value: unknown, type: YAML.Scalar.Type | undefined): string {
  if (typeof value !== 'string') return String(value);
  if (type === 'QUOTE_SINGLE') return `'${value.replace(/'/g, "''")}'`;
  if (type === 'QUOTE_DOUBLE') return JSON.stringify(value);
  return YAML.stringify(value, { lineWidth: 0 }).trimEnd();
}
