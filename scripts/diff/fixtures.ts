/**
 * Small edits of `spec/`, each with the classification `paylater diff` must give it (the test set
 * of scripts/diff/diff.test.ts). An edit is either a text replacement in the first spec file
 * (sorted) that matches, or a new number for a stated fact (`x-rate-limit`, …), found through the
 * resolved documents and placed back in its source file — so the edit follows the fact wherever
 * the spec states it. Either fails loudly when it finds nothing to edit.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadDocuments, type Json } from './documents.ts';
import { SourceLocator } from './locate.ts';
import type { Impact } from './model.ts';
import { workingTree } from './tree.ts';

export interface Replacement {
  /** Only files whose path (relative to spec/) ends with this. */
  file?: string;
  find: RegExp;
  replace: string;
}

/** A new number for a field of a fact, e.g. `{ fact: 'x-rate-limit', field: ['limit'], value: 50 }`. */
export interface FactEdit {
  fact: string;
  field: string[];
  value: number;
}

export interface Fixture {
  name: string;
  edits: Array<Replacement | FactEdit>;
  /** The highest impact of the diff. */
  impact: Impact;
  /** Rules that must be among the changes, with the impact each must have. */
  rules: Record<string, Impact>;
  /** Documents whose required bump is `impact` (default: any one of them). */
  documents?: string[];
}

function specFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...specFiles(full));
    else out.push(full);
  }
  return out.sort();
}

function firstKey(node: unknown, key: string, keys: string[] = []): string[] | undefined {
  if (!node || typeof node !== 'object') return undefined;
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === key) return [...keys, k];
    const found = firstKey(v, key, [...keys, k]);
    if (found) return found;
  }
  return undefined;
}

async function editFact(dir: string, e: FactEdit): Promise<void> {
  const locator = new SourceLocator();
  for (const doc of await loadDocuments(workingTree(dir))) {
    const keys = firstKey(doc.resolved, e.fact);
    if (!keys) continue;
    const place = locator.locate(doc.root, [...keys, ...e.field]);
    const lines = readFileSync(place.file, 'utf8').split('\n');
    const line = lines[place.line - 1] ?? '';
    const name = e.field[e.field.length - 1] ?? e.fact;
    if (!line.includes(`${name}:`))
      throw new Error(`fixture fact ${e.fact}.${e.field.join('.')}: ${place.file}:${place.line} does not state it`);
    lines[place.line - 1] = line.replace(/(:\s*)-?\d+(\.\d+)?/, `$1${e.value}`);
    writeFileSync(place.file, lines.join('\n'));
    return;
  }
  throw new Error(`fixture fact ${e.fact} is stated nowhere`);
}

/** Applies the edits to the `spec/` below `dir`; throws when an edit finds nothing to edit. */
export async function applyEdits(dir: string, edits: ReadonlyArray<Replacement | FactEdit>): Promise<void> {
  for (const e of edits) {
    if ('fact' in e) {
      await editFact(dir, e);
      continue;
    }
    const files = specFiles(path.join(dir, 'spec'));
    const file = files.find((f) => (!e.file || f.endsWith(e.file)) && e.find.test(readFileSync(f, 'utf8')));
    if (!file) throw new Error(`fixture edit matches no spec file: ${e.file ?? ''} ${e.find}`);
    writeFileSync(file, readFileSync(file, 'utf8').replace(e.find, e.replace));
  }
}

const V1V2 = ['merchant-v1', 'merchant-v2'];
const ALL_DOCS = ['merchant-v1', 'merchant-v2', 'webhooks'];

export const FIXTURES: Fixture[] = [
  {
    name: 'rename a response field (totalAmount → amount in the partner transaction)',
    edits: [{ file: 'schemas/PartnerTransaction.yaml', find: /totalAmount/g, replace: 'amount' }],
    impact: 'major',
    rules: { 'domain/response-field-removed': 'major', 'domain/response-field-added': 'minor' },
    documents: V1V2,
  },
  {
    name: 'remove a request enum value (ar from Locale)',
    edits: [{ file: 'schemas/Locale.yaml', find: /\n {2}- ar\n/, replace: '\n' }],
    impact: 'major',
    rules: { 'domain/request-enum-value-removed': 'major' },
    documents: V1V2,
  },
  {
    name: 'add a request enum value (es to Locale)',
    edits: [{ file: 'schemas/Locale.yaml', find: /\n {2}- ar\n/, replace: '\n  - ar\n  - es\n' }],
    impact: 'minor',
    rules: { 'domain/request-enum-value-added': 'minor' },
    documents: V1V2,
  },
  {
    name: 'a new transaction status (response enum value)',
    edits: [{ file: 'schemas/TransactionStatus.yaml', find: /\n {2}- COMPLETED\n/, replace: '\n  - COMPLETED\n  - REFUNDED\n' }],
    impact: 'major',
    rules: { 'domain/response-enum-value-added': 'major' },
    documents: V1V2,
  },
  {
    name: 'a new event (AsyncAPI message transaction.refunded)',
    edits: [
      {
        file: 'asyncapi.yaml',
        find: /\n {2}messages:\n/,
        replace:
          '\n  messages:\n    transactionRefunded:\n      name: transaction.refunded\n      title: Transaction refunded\n      summary: The transaction was refunded.\n      contentType: application/json\n      payload:\n        schemaFormat: application/schema+json;version=draft-07\n        schema:\n          $ref: ./components/schemas/TransactionExpiredEvent.yaml\n',
      },
    ],
    impact: 'major',
    rules: { 'domain/event-added': 'major' },
    documents: ['webhooks'],
  },
  {
    name: 'an error code added to an operation (B1 409)',
    edits: [
      {
        file: 'responses/PartnerCreateConflict.yaml',
        find: /- DUPLICATE_VENDOR_REFERENCE\n/,
        replace: '- DUPLICATE_VENDOR_REFERENCE\n                    - DUPLICATE_ORDER\n',
      },
    ],
    impact: 'major',
    rules: { 'domain/error-answer-added': 'major' },
    documents: V1V2,
  },
  {
    name: 'an error status removed from an operation (B1 409)',
    edits: [{ file: 'paths/api_v1_public_partner_transactions.yaml', find: /\n {4}'409':\n {6}\$ref: [^\n]+\n/, replace: '\n' }],
    impact: 'major',
    rules: { 'domain/error-answer-removed': 'major' },
    documents: V1V2,
  },
  {
    name: 'a state added to x-state-machine',
    edits: [
      {
        file: 'schemas/TransactionStatus.yaml',
        find: /\n {4}COMPLETED:\n/,
        replace: '\n    REFUNDED:\n      terminal: true\n      description: Refunded.\n    COMPLETED:\n',
      },
    ],
    impact: 'major',
    rules: { 'domain/state-added': 'major' },
    documents: V1V2,
  },
  {
    name: 'a transition removed (customer-cancel)',
    edits: [{ file: 'schemas/TransactionStatus.yaml', find: /\n {4}- id: customer-cancel\n(?: {6}[^\n]*\n| {8}[^\n]*\n)+/, replace: '\n' }],
    impact: 'major',
    rules: { 'domain/transition-removed': 'major' },
    documents: V1V2,
  },
  {
    name: "a transition's trigger changed (expire driven by another operation)",
    edits: [
      {
        file: 'schemas/TransactionStatus.yaml',
        find: /kind: clock\n(\s+)operationId: sandboxAdvanceClock/,
        replace: 'kind: system\n$1operationId: sandboxAdvanceClock',
      },
    ],
    impact: 'major',
    rules: { 'domain/transition-changed': 'major' },
    documents: V1V2,
  },
  {
    name: "a guard's prose changed",
    edits: [
      {
        file: 'schemas/TransactionStatus.yaml',
        find: /guard: every instalment has been collected/,
        replace: 'guard: every instalment has been collected and settled',
      },
    ],
    impact: 'minor',
    rules: { 'domain/guard-changed': 'minor' },
    documents: V1V2,
  },
  {
    name: 'a transition emits another event',
    edits: [
      {
        file: 'schemas/TransactionStatus.yaml',
        find: /guard: every instalment has been collected\n(\s+)emits: null/,
        replace: 'guard: every instalment has been collected\n$1emits: transaction.approved',
      },
    ],
    impact: 'major',
    rules: { 'domain/transition-emits-changed': 'major' },
    documents: V1V2,
  },
  {
    name: 'a request maxLength narrowed (item reference 100 → 50)',
    edits: [{ file: 'schemas/ItemReference.yaml', find: /maxLength: 100/, replace: 'maxLength: 50' }],
    impact: 'major',
    rules: { 'domain/request-limit-narrowed': 'major' },
    documents: V1V2,
  },
  {
    name: 'a request-only limit widened (B1 items at most 100 → 200)',
    edits: [{ file: 'schemas/PartnerTransactionCreateRequest.yaml', find: /maxItems: 100/, replace: 'maxItems: 200' }],
    impact: 'minor',
    rules: { 'domain/request-limit-widened': 'minor' },
    documents: V1V2,
  },
  {
    // ItemName is one fact for the request and the answers: a longer name may now come back.
    name: 'a limit shared by request and response widened (item name 200 → 300)',
    edits: [{ file: 'schemas/ItemName.yaml', find: /maxLength: 200/, replace: 'maxLength: 300' }],
    impact: 'major',
    rules: { 'domain/request-limit-widened': 'minor', 'domain/response-limit-widened': 'major' },
    documents: V1V2,
  },
  {
    name: 'a request minimum narrowed (quantity at least 2)',
    edits: [{ file: 'schemas/ItemQuantity.yaml', find: /type: integer\nminimum: 1\n/, replace: 'type: integer\nminimum: 2\n' }],
    impact: 'major',
    rules: { 'domain/request-limit-narrowed': 'major' },
    documents: V1V2,
  },
  {
    name: 'a request maximum added (quantity at most 999)',
    edits: [
      { file: 'schemas/ItemQuantity.yaml', find: /type: integer\nminimum: 1\n/, replace: 'type: integer\nminimum: 1\nmaximum: 999\n' },
    ],
    impact: 'major',
    rules: { 'domain/request-limit-narrowed': 'major' },
    documents: V1V2,
  },
  {
    name: 'the amount range narrowed (x-amount-range maximum)',
    edits: [{ fact: 'x-amount-range', field: ['maximum'], value: 10000 }],
    impact: 'major',
    rules: { 'domain/request-limit-narrowed': 'major' },
  },
  {
    name: 'a request pattern changed (customer phone)',
    edits: [{ file: 'schemas/CustomerPhone.yaml', find: /pattern: '([^']+)'/, replace: "pattern: '^212[0-9]{9}$$'" }],
    impact: 'major',
    rules: { 'domain/request-limit-narrowed': 'major' },
  },
  {
    name: 'a request field became required (item reference)',
    edits: [
      {
        file: 'schemas/PartnerTransactionItemInput.yaml',
        find: /required:\n {2}- name\n/,
        replace: 'required:\n  - name\n  - reference\n',
      },
    ],
    impact: 'major',
    rules: { 'domain/request-field-became-required': 'major' },
    documents: V1V2,
  },
  {
    name: 'a new optional request field (item note)',
    edits: [
      {
        file: 'schemas/PartnerTransactionItemInput.yaml',
        find: /\nproperties:\n/,
        replace: '\nproperties:\n  note:\n    description: A note.\n    type: string\n    maxLength: 200\n',
      },
    ],
    impact: 'minor',
    rules: { 'domain/request-field-added-optional': 'minor' },
    documents: V1V2,
  },
  {
    name: 'a new optional response field (partner transaction note)',
    edits: [
      {
        file: 'schemas/PartnerTransaction.yaml',
        find: /\nproperties:\n/,
        replace: '\nproperties:\n  note:\n    description: A note.\n    type: string\n',
      },
    ],
    impact: 'minor',
    rules: { 'domain/response-field-added': 'minor' },
    documents: V1V2,
  },
  {
    name: 'a response field retyped (merchantName becomes an integer)',
    edits: [
      { file: 'schemas/PartnerTransaction.yaml', find: /(\n {2}merchantName:\n(?: {4}[^\n]*\n)*? {4}type: )string/, replace: '$1integer' },
    ],
    impact: 'major',
    rules: { 'domain/response-field-retyped': 'major' },
    documents: V1V2,
  },
  {
    name: 'a webhook payload field removed (merchantName of the event data)',
    edits: [{ file: 'schemas/WebhookTransactionData.yaml', find: /\n {2}merchantName:\n(?: {4}[^\n]*\n)+/, replace: '\n' }],
    impact: 'major',
    rules: { 'domain/event-field-removed': 'major' },
    documents: ALL_DOCS,
  },
  {
    name: 'a webhook payload field retyped (amount of the event data becomes a string)',
    edits: [
      { file: 'schemas/WebhookTransactionData.yaml', find: /(\n {2}amount:\n(?: {4}[^\n]*\n)*? {4}type: )number/, replace: '$1string' },
    ],
    impact: 'major',
    rules: { 'domain/event-field-retyped': 'major' },
    documents: ALL_DOCS,
  },
  {
    name: 'a webhook header narrowed (webhook-id pattern)',
    edits: [{ file: 'schemas/WebhookHeaders.yaml', find: /pattern: '\^msg_\[0-9A-Za-z\]\+\$'/, replace: "pattern: '^msg_[0-9a-z]{20}$$'" }],
    impact: 'minor',
    rules: { 'domain/event-limit-narrowed': 'minor' },
    documents: ALL_DOCS,
  },
  {
    name: 'the webhook signature tolerance shortened (x-webhook-delivery)',
    edits: [{ fact: 'x-webhook-delivery', field: ['signature', 'toleranceSeconds'], value: 60 }],
    impact: 'major',
    rules: { 'domain/webhook-delivery-changed': 'major' },
    documents: ALL_DOCS,
  },
  {
    name: 'a security scheme changed (the API key header name)',
    edits: [{ file: 'securitySchemes/ApiKey.yaml', find: /^name: X-API-Key$/m, replace: 'name: X-PayLater-Key' }],
    impact: 'major',
    rules: { 'domain/security-scheme-changed': 'major' },
    documents: V1V2,
  },
  {
    name: 'a response header removed (RateLimit-Policy of A1)',
    edits: [{ file: 'paths/api_v1_public_sessions.v1.yaml', find: /\n {8}RateLimit-Policy:\n {10}\$ref: [^\n]+\n/, replace: '\n' }],
    impact: 'major',
    rules: { 'domain/response-header-removed': 'major' },
    documents: ['merchant-v1'],
  },
  {
    name: 'the rate limit narrowed (100 → 50 requests)',
    edits: [{ fact: 'x-rate-limit', field: ['limit'], value: 50 }],
    impact: 'major',
    rules: { 'domain/rate-limit-changed': 'major' },
  },
  {
    name: 'the rate limit widened (100 → 200 requests)',
    edits: [{ fact: 'x-rate-limit', field: ['limit'], value: 200 }],
    impact: 'minor',
    rules: { 'domain/rate-limit-changed': 'minor' },
  },
  {
    name: 'the token lifetime shortened',
    edits: [{ fact: 'x-token-lifetime-seconds', field: [], value: 1800 }],
    impact: 'major',
    rules: { 'domain/token-lifetime-changed': 'major' },
  },
  {
    name: 'the payment window lengthened',
    edits: [{ fact: 'paymentWindow', field: ['defaultSeconds'], value: 3600 }],
    impact: 'minor',
    rules: { 'domain/payment-window-changed': 'minor' },
    documents: V1V2,
  },
  {
    // its request body limit (x-max-body-bytes of its 413) comes with it: not a narrowing of a limit it never had
    name: 'a new operation with a request body (POST on the sandbox clock path)',
    edits: [
      {
        file: 'paths/api_v1_sandbox_clock.yaml',
        find: /^get:\n/,
        replace:
          "post:\n  operationId: sandboxSetClock\n  summary: Set the sandbox clock\n  tags:\n    - Sandbox\n  security:\n    - ApiKey: []\n  x-sandbox: true\n  requestBody:\n    required: true\n    content:\n      application/json:\n        schema:\n          $ref: ../components/schemas/SandboxClockAdvanceRequest.yaml\n  responses:\n    '200':\n      description: The clock.\n      content:\n        application/json:\n          schema:\n            $ref: ../components/schemas/SandboxClock.yaml\n    '400':\n      $ref: ../components/responses/BadRequest.yaml\n    '413':\n      $ref: ../components/responses/PayloadTooLarge.yaml\nget:\n",
      },
    ],
    impact: 'minor',
    rules: { 'redocly/added': 'minor' },
    documents: V1V2,
  },
  {
    name: 'a description-only change',
    edits: [
      {
        file: 'schemas/PartnerTransactionItemInput.yaml',
        find: /description: One line item of a partner transaction request\./,
        replace: 'description: One line of a partner transaction request.',
      },
    ],
    impact: 'patch',
    rules: { 'redocly/modified': 'patch' },
    documents: V1V2,
  },
  {
    name: 'an ADR added and an x-decision changed',
    edits: [
      {
        file: 'DECISIONS.md',
        find: /$(?![\s\S])/,
        replace: '\n## ADR-099 — A fixture decision\n\n- **Decision.** Locales are decided by ADR-099.\n',
      },
      { file: 'schemas/Locale.yaml', find: /x-decision: ADR-015/, replace: 'x-decision: ADR-099' },
    ],
    impact: 'patch',
    rules: { 'domain/adr-added': 'patch', 'domain/decision-changed': 'patch' },
    documents: V1V2,
  },
];
