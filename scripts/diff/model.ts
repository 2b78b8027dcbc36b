/** What a contract diff reports: changes, each with its impact, side, source place and audience. */

export type Impact = 'major' | 'minor' | 'patch';
export const IMPACTS: readonly Impact[] = ['major', 'minor', 'patch'];
export const rank = (i: Impact | 'none'): number => (i === 'none' ? 0 : 3 - IMPACTS.indexOf(i));

export type Side = 'request' | 'response' | 'event' | 'behaviour' | 'decision';

export const MERCHANTS = 'merchant integrations';
export const IMPLEMENTERS = "implementers' servers";
export const CLIENTS = 'generated clients';
export type Audience = typeof MERCHANTS | typeof IMPLEMENTERS | typeof CLIENTS;

export interface Change {
  /** The documents the change is in (`merchant-v1`, `merchant-v2`, `webhooks`; `decisions` for spec/DECISIONS.md). */
  documents: string[];
  /** `domain/<rule>` for the contract's own rules, `redocly/<rule>` for Redocly's. */
  rule: string;
  impact: Impact;
  side: Side;
  /** What it is about, e.g. `POST /api/v1/public/partner/transactions (createPartnerTransaction) response 201`. */
  subject: string;
  message: string;
  /** `spec/…:line` in the revision, or `spec/…:line (base)` for something removed. */
  location: string;
  breaks: Audience[];
  /** Names (fields, enum values, codes, events) that the revision no longer has, for the mention check. */
  removedNames?: string[];
}

export function maxImpact(changes: readonly Pick<Change, 'impact'>[]): Impact | 'none' {
  let best: Impact | 'none' = 'none';
  for (const c of changes) if (rank(c.impact) > rank(best)) best = c.impact;
  return best;
}

/** Merges the same change found in several documents (shared source files) into one entry. */
export function mergeChanges(changes: readonly Change[]): Change[] {
  const byKey = new Map<string, Change>();
  for (const c of changes) {
    const key = `${c.rule}|${c.location}`;
    const seen = byKey.get(key);
    if (!seen) byKey.set(key, { ...c, documents: [...c.documents], breaks: [...c.breaks] });
    else {
      for (const d of c.documents) if (!seen.documents.includes(d)) seen.documents.push(d);
      if (rank(c.impact) > rank(seen.impact)) seen.impact = c.impact;
    }
  }
  const order = (c: Change) => `${3 - rank(c.impact)}|${c.location}|${c.rule}|${c.message}`;
  return [...byKey.values()].sort((a, b) => order(a).localeCompare(order(b), 'en'));
}
