/**
 * The go-live checklist: the items a merchant's integration must pass before it gets
 * live keys, each with its verdict (pass, fail, not observed), what was seen, and the section of
 * the "Before you go live" guide (spec/guides/05-go-live.md) that says how to fix it.
 */

export type Verdict = 'pass' | 'fail' | 'not_observed';

export type ItemGroup = 'receiver' | 'verification' | 'key-hygiene' | 'resilience';

export interface CheckItem {
  id: string;
  group: ItemGroup;
  title: string;
  verdict: Verdict;
  /** What the check saw, in one or a few sentences. */
  seen: string;
  /** The guide section that fixes a failure (absolute URL). */
  guide: string;
}

export interface CertifyReport {
  baseUrl: string;
  webhookUrl: string | null;
  startedAt: string;
  finishedAt: string;
  items: CheckItem[];
  summary: Record<Verdict, number>;
  /** True when every item passed. */
  ready: boolean;
}

/** The guide's page and its section per group (ids as `npm run docs` makes them from the headings). */
export const GUIDE_PAGE = 'guide-go-live.html';
export const GUIDE_SECTIONS: Record<ItemGroup, { heading: string; anchor: string }> = {
  receiver: { heading: 'Webhook receiver', anchor: 'webhook-receiver' },
  verification: { heading: 'Verification before fulfilment', anchor: 'verification-before-fulfilment' },
  'key-hygiene': { heading: 'Key hygiene', anchor: 'key-hygiene' },
  resilience: { heading: 'Resilience', anchor: 'resilience' },
};

export const GROUP_TITLES: Record<ItemGroup, string> = {
  receiver: 'Webhook receiver',
  verification: 'Verification before fulfilment',
  'key-hygiene': 'Key hygiene',
  resilience: 'Resilience',
};

/** The link to the section of `group` under the docs at `docsUrl`. */
export function guideLink(docsUrl: string, group: ItemGroup): string {
  return `${docsUrl.replace(/\/$/, '')}/${GUIDE_PAGE}#${GUIDE_SECTIONS[group].anchor}`;
}

/** The report of `items`. */
export function reportOf(
  items: CheckItem[],
  o: { baseUrl: string; webhookUrl: string | null; startedAt: Date; finishedAt: Date },
): CertifyReport {
  const summary: Record<Verdict, number> = { pass: 0, fail: 0, not_observed: 0 };
  for (const i of items) summary[i.verdict]++;
  return {
    baseUrl: o.baseUrl,
    webhookUrl: o.webhookUrl,
    startedAt: o.startedAt.toISOString(),
    finishedAt: o.finishedAt.toISOString(),
    items,
    summary,
    ready: items.length > 0 && summary.pass === items.length,
  };
}
