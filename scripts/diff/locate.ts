/**
 * Maps a place in a resolved contract document (a list of keys, as in the bundled and dereferenced
 * document) back to the `spec/` file and line that holds it: walks the source YAML from the root file,
 * following `$ref`s into other files (and inside a file) the way the bundler does.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML, { LineCounter, isMap, isScalar, isSeq, type Node } from 'yaml';

export interface SourcePlace {
  /** Absolute path of the source file. */
  file: string;
  line: number;
}

interface Parsed {
  doc: YAML.Document.Parsed;
  lines: LineCounter;
}

/** A locator for the documents of one contract tree (caches each parsed file). */
export class SourceLocator {
  private readonly files = new Map<string, Parsed | null>();

  private parse(file: string): Parsed | null {
    if (!this.files.has(file)) {
      try {
        const lines = new LineCounter();
        const doc = YAML.parseDocument(readFileSync(file, 'utf8'), { lineCounter: lines });
        this.files.set(file, { doc, lines });
      } catch {
        this.files.set(file, null);
      }
    }
    return this.files.get(file) ?? null;
  }

  private place(file: string, node: Node | null | undefined): SourcePlace {
    const parsed = this.parse(file);
    const offset = node?.range?.[0] ?? 0;
    return { file, line: parsed ? parsed.lines.linePos(offset).line : 1 };
  }

  private static child(node: Node | null | undefined, key: string): Node | undefined {
    if (isMap(node)) {
      for (const pair of node.items) {
        const k = isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
        if (k === key) return (pair.value ?? undefined) as Node | undefined;
      }
      return undefined;
    }
    if (isSeq(node) && /^\d+$/.test(key)) return (node.items[Number(key)] ?? undefined) as Node | undefined;
    return undefined;
  }

  /** Follows a `$ref` of `node` (in `file`) to the node it names, or null if it has none. */
  private follow(file: string, node: Node | undefined, depth: number): { file: string; node: Node | undefined } | null {
    const ref = SourceLocator.child(node, '$ref');
    if (!isScalar(ref) || typeof ref.value !== 'string' || depth > 32) return null;
    const [target = '', pointer = ''] = ref.value.split('#');
    const targetFile = target ? path.resolve(path.dirname(file), decodeURIComponent(target)) : file;
    const parsed = this.parse(targetFile);
    if (!parsed) return null;
    let current: Node | undefined = parsed.doc.contents ?? undefined;
    for (const seg of pointer.split('/').filter(Boolean)) {
      current = SourceLocator.child(current, seg.replace(/~1/g, '/').replace(/~0/g, '~'));
    }
    return { file: targetFile, node: current };
  }

  /**
   * The source place of `keys` below the root file: the node itself where it is written (a `$ref`
   * is placed where it is used, as Redocly places it); a removed key is placed at its nearest parent.
   */
  locate(rootFile: string, keys: readonly string[]): SourcePlace {
    // A component the bundler hoisted: its source is spec/components/<type>/<Name>.yaml.
    const [top, type, name, ...rest] = keys;
    if (
      top === 'components' &&
      type &&
      name &&
      SourceLocator.child(SourceLocator.child(SourceLocator.child(this.parse(rootFile)?.doc.contents, 'components'), type), name) ===
        undefined
    ) {
      const file = path.join(path.dirname(rootFile), 'components', type, `${name}.yaml`);
      if (this.parse(file)) return this.locate(file, rest);
    }
    let file = rootFile;
    let node: Node | undefined = this.parse(rootFile)?.doc.contents ?? undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      let next = SourceLocator.child(node, key);
      // A `$ref` with siblings: a sibling wins, else the key is looked up in the target.
      let depth = 0;
      while (next === undefined) {
        const target = this.follow(file, node, depth++);
        if (!target) break;
        file = target.file;
        node = target.node;
        next = SourceLocator.child(node, key);
      }
      if (next === undefined) return this.place(file, node);
      node = next;
    }
    return this.place(file, node);
  }
}
