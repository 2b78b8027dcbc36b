/**
 * The sandbox API log (ADR-056) judged against the calls the proxy forwarded: an entry records the
 * `Origin` header as the call sent it. The proxy remembers, per operation, path and status, the
 * Origin values its calls carried (none counts as null) since a recording was last started (the
 * log holds the calls made while recording); an entry for such a call whose origin is none of them
 * is a finding. At most 1,000 (operation, path, status) kept, oldest first out.
 */
import { finding, type StateFinding } from './finding.ts';
import { isRecord } from './state-store.ts';

const KEEP = 1000;

export class ApiLogJudge {
  private readonly origins = new Map<string, Set<string | null>>();

  /** A recording started (sandboxSetApiLog answered): the log holds the calls from now on. */
  restart(): void {
    this.origins.clear();
  }

  /** A call forwarded: its operation, path (no query), status and Origin header. */
  saw(opId: string, method: string, path: string, status: number, origin: string | undefined): void {
    const k = `${opId} ${method} ${path} ${status}`;
    let set = this.origins.get(k);
    if (!set) {
      this.origins.set(k, (set = new Set()));
      if (this.origins.size > KEEP) this.origins.delete(this.origins.keys().next().value as string);
    }
    if (set.size < 8) set.add(origin ?? null);
  }

  /**
   * A `sandboxGetApiLog` answer: each entry's origin one its call carried.
   * @judges ADR-056
   */
  judge(ob: { seq: number; opId: string }, json: unknown): StateFinding[] {
    const entries = isRecord(json) && Array.isArray(json.entries) ? json.entries : [];
    for (const [i, e] of entries.entries()) {
      if (!isRecord(e) || typeof e.operationId !== 'string' || typeof e.path !== 'string') continue;
      const seen = this.origins.get(`${e.operationId} ${String(e.method)} ${e.path} ${String(e.status)}`);
      const origin = typeof e.origin === 'string' ? e.origin : null;
      if (!seen || seen.has(origin)) continue;
      return [
        finding({
          kind: 'api-log',
          ob,
          jsonPath: `$.entries[${i}].origin`,
          message: `the API log records ${e.operationId} ${String(e.method)} ${e.path} (${String(e.status)}) with origin ${JSON.stringify(e.origin)}; the calls the proxy forwarded there carried ${[...seen].map((x) => JSON.stringify(x)).join(' or ')} (ADR-056: the Origin as sent)`,
          expected: [...seen],
          actual: e.origin,
        }),
      ];
    }
    return [];
  }
}
