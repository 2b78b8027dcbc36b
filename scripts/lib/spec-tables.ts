/**
 * Tables a guide shows as `{{table:NAME}}` (ADR-086): built from spec/ when the guide is read, so a
 * row follows its fact (a sandbox scenario added, removed or moved; its phone, delay, target status,
 * event, amount or code) and is never typed into a guide by hand.
 */
type Json = Record<string, unknown>;
/** The value at `file#/pointer` under spec/ (rule-spec.ts `specValue`, on the copy being read). */
type Read = (loc: string) => Promise<unknown>;

interface Transition {
  from: string[] | null;
  to: string;
  trigger: { kind: string; operationId?: string | null };
  emits: string | null;
}

const STATE_MACHINE = 'components/schemas/TransactionStatus.yaml#/x-state-machine';
const SCENARIOS = 'components/facts/SandboxScenarios.yaml';
const WEBHOOK_RETRY = 'components/schemas/WebhookHeaders.yaml#/x-webhook-delivery/retry';

/** `0 s`, `5 min`, `2 h`: a delay in the largest unit that writes it whole. */
const duration = (s: number): string =>
  s >= 3600 && s % 3600 === 0 ? `${s / 3600} h` : s >= 60 && s % 60 === 0 ? `${s / 60} min` : `${s} s`;

/** The move a scheduled customer action (its operationId) or, without one, the clock makes from the initial status. */
async function moveOf(read: Read, operationId: string | null): Promise<Transition | undefined> {
  const sm = (await read(STATE_MACHINE)) as { initial: string; transitions: Transition[] } | undefined;
  return sm?.transitions.find(
    (t) => t.from?.includes(sm.initial) && (operationId === null ? t.trigger.kind === 'clock' : t.trigger.operationId === operationId),
  );
}

/** `(APPROVED, transaction.approved)`: where a move leads and what it emits. */
const leadsTo = (t: Transition | undefined): string =>
  t ? `(\`${t.to}\`${t.emits ? `, \`${t.emits}\`` : ''})` : '(no transition takes it from the initial status)';

const TABLES: Record<string, (read: Read) => Promise<string | undefined>> = {
  /** The webhook retry schedule, inline: `0 s, 5 s, 5 min … and 10 h (±20 %)`, from `x-webhook-delivery`. */
  async 'webhook-retry-delays'(read) {
    const retry = (await read(WEBHOOK_RETRY)) as { delaysSeconds?: unknown; jitter?: unknown } | undefined;
    const delays = retry?.delaysSeconds;
    if (!Array.isArray(delays) || delays.length === 0 || typeof retry?.jitter !== 'number') return undefined;
    const words = (delays as number[]).map(duration);
    const last = words.pop()!;
    return `${words.length ? `${words.join(', ')} and ` : ''}${last} (±${Math.round(retry.jitter * 100)} %)`;
  },
  /** B1's magic customer phones: what the customer does, when, and where it leads. */
  async 'sandbox-phones'(read) {
    const phones = (await read(`${SCENARIOS}#/customerPhones`)) as Json[] | undefined;
    if (!Array.isArray(phones)) return undefined;
    const rows = await Promise.all(
      phones.map(async (p) => {
        const op = (p.operationId as string | null) ?? null;
        const t = await moveOf(read, op);
        const what =
          op === null
            ? `${String(p.outcome)}: nothing is scheduled, the payment window ends it ${leadsTo(t)}`
            : `${String(p.outcome)} ${String(p.afterSeconds)} s of sandbox time after creation, as \`${op}\` would ${leadsTo(t)}`;
        return `| \`${String(p.customerPhone)}\` | ${what} |`;
      }),
    );
    return ['| `customerPhone` | What the customer does |', '|---|---|', ...rows].join('\n');
  },
  /** B1's magic totals: the refusal each one answers, with its status from the error catalogue. */
  async 'sandbox-totals'(read) {
    const amounts = (await read(`${SCENARIOS}#/amounts`)) as Json[] | undefined;
    const codes = (await read('components/schemas/ErrorCode.yaml#/oneOf')) as Json[] | undefined;
    if (!Array.isArray(amounts) || !Array.isArray(codes)) return undefined;
    const status = (code: unknown): string => {
      const s = codes.find((c) => c.const === code)?.['x-status'];
      return typeof s === 'number' ? String(s) : '(a code the catalogue does not hold)';
    };
    const rows = amounts.map((a) => `| \`${String(a.total)}\` | ${status(a.code)} \`${String(a.code)}\` |`);
    return ['| `total` | Answer |', '|---|---|', ...rows].join('\n');
  },
};

/** The table `{{table:NAME}}` names, built from what `read` reads of spec/; undefined when there is no such table. */
export async function specTable(name: string, read: Read): Promise<string | undefined> {
  return TABLES[name]?.(read);
}
