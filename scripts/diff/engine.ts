/**
 * `paylater diff` itself: compares the contract of two trees (each variant's OpenAPI document and
 * the AsyncAPI document) with Redocly's diff and the contract's own rules, and says which version
 * bump each document needs.
 */
import type { ContractDocument } from './documents.ts';
import { loadDocuments } from './documents.ts';
import { Collector, compareEvents, compareOperations, compareSecuritySchemes, stable, type DomainChange } from './domain.ts';
import { compareAdrs, compareDecisionMarks, compareFacts, compareStateMachine } from './facts.ts';
import { SourceLocator } from './locate.ts';
import { maxImpact, mergeChanges, type Change, type Impact } from './model.ts';
import { fromRedocly, runRedoclyDiff } from './redocly.ts';
import type { ContractTree } from './tree.ts';

export interface LoadedTree {
  tree: ContractTree;
  docs: ContractDocument[];
}

export async function loadTree(tree: ContractTree): Promise<LoadedTree> {
  return { tree, docs: await loadDocuments(tree) };
}

export interface DocumentVerdict {
  key: string;
  baseVersion: string;
  revisionVersion: string;
  impact: Impact | 'none';
  /** The smallest version the revision must carry. */
  requiredVersion: string;
  bumped: boolean;
}

export interface DiffResult {
  base: string;
  revision: string;
  changes: Change[];
  documents: DocumentVerdict[];
  errors: string[];
}

type Semver = [number, number, number];
function parseSemver(v: string): Semver | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}
const cmp = (a: Semver, b: Semver) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** The version a change of `impact` requires after `base` (a major change below 1.0.0 is a minor bump). */
export function nextVersion(base: string, impact: Impact | 'none'): string {
  const v = parseSemver(base);
  if (!v || impact === 'none') return base;
  const [maj, min, pat] = v;
  if (impact === 'major' && maj > 0) return `${maj + 1}.0.0`;
  if (impact === 'major' || impact === 'minor') return `${maj}.${min + 1}.0`;
  return `${maj}.${min}.${pat + 1}`;
}

export function versionSatisfies(revision: string, required: string): boolean {
  const r = parseSemver(revision);
  const q = parseSemver(required);
  return Boolean(r && q && cmp(r, q) >= 0);
}

async function diffDocument(
  base: LoadedTree,
  rev: LoadedTree,
  b: ContractDocument,
  r: ContractDocument,
  locators: [SourceLocator, SourceLocator],
): Promise<{ changes: Change[]; error?: string }> {
  // Resolved documents that are equal hold no change for either side (Redocly compares the same content).
  if (stable(b.resolved) === stable(r.resolved)) return { changes: [] };
  const c = new Collector({ doc: b, dir: base.tree.dir, locator: locators[0] }, { doc: r, dir: rev.tree.dir, locator: locators[1] });
  if (r.kind === 'openapi') {
    compareOperations(c);
    compareSecuritySchemes(c);
    compareStateMachine(c);
  }
  compareEvents(c);
  compareFacts(c);
  compareDecisionMarks(c);
  const domain: DomainChange[] = c.out;
  const report = await runRedoclyDiff(b.root, r.root);
  if ('error' in report) return { changes: domain, error: report.error };
  const covered = new Set(domain.flatMap((d) => d.places));
  const errorAnswers = domain.some((d) => d.rule.startsWith('domain/error-answer-'));
  const generic = fromRedocly(r.key, report, base.tree.dir, rev.tree.dir).filter((g) => {
    if (g.places.some((p) => covered.has(p))) return false;
    // The code enums of error responses: the domain's error-answer rules say it per operation.
    if (errorAnswers && /redocly\/enum-values-/.test(g.rule) && /^[A-Z]+ \S+ [45]\d\d$/.test(g.subject)) return false;
    return true;
  });
  const strip = ({ places: _p, ...rest }: Change & { places?: string[] }): Change => rest;
  return { changes: [...domain.map(strip), ...generic.map(strip)] };
}

/** Compares two loaded trees: every change, merged across documents, and each document's verdict. */
export async function diffTrees(base: LoadedTree, rev: LoadedTree): Promise<DiffResult> {
  const locators: [SourceLocator, SourceLocator] = [new SourceLocator(), new SourceLocator()];
  const errors: string[] = [];
  const pairs = rev.docs.map((r) => ({ r, b: base.docs.find((d) => d.key === r.key) }));
  const results = await Promise.all(
    pairs.map(({ r, b }) =>
      b ? diffDocument(base, rev, b, r, locators) : Promise.resolve({ changes: [] as Change[], error: `${r.key} is not in the base` }),
    ),
  );
  const all: Change[] = [];
  for (const res of results) {
    all.push(...res.changes);
    if (res.error) errors.push(res.error);
  }
  all.push(...compareAdrs(base.tree.dir, rev.tree.dir));
  const changes = mergeChanges(all);
  const documents = pairs.map(({ r, b }): DocumentVerdict => {
    const impact = maxImpact(changes.filter((c) => c.documents.includes(r.key)));
    const baseVersion = b?.version ?? '0.0.0';
    const requiredVersion = nextVersion(baseVersion, impact);
    return {
      key: r.key,
      baseVersion,
      revisionVersion: r.version,
      impact,
      requiredVersion,
      bumped: versionSatisfies(r.version, requiredVersion),
    };
  });
  return { base: base.tree.label, revision: rev.tree.label, changes, documents, errors };
}
