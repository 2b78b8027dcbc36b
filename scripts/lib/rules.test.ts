import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { renderRuleIndex, ruleIndex, ruleProblems } from './rules.ts';

let root: string;

/** A minimal package: one seed rule, one decision, and the given source files. */
async function fixture(files: Record<string, string>): Promise<string> {
  root = await mkdtemp(path.join(tmpdir(), 'rules-'));
  const all: Record<string, string> = {
    'spec/rules.yaml':
      'rules:\n  - id: b4-only-pending\n    seed: B4 only while PENDING.\n    spec: schemas/Status.yaml#/x-state-machine/rejections\n',
    'spec/schemas/Status.yaml': 'type: string\nx-decision: ADR-001\nx-state-machine:\n  rejections:\n    - from: [APPROVED]\n',
    'spec/DECISIONS.md': '# Decisions\n\n## ADR-001 — One error shape\n\nText.\n',
    ...files,
  };
  for (const [rel, text] of Object.entries(all)) {
    await mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await writeFile(path.join(root, rel), text);
  }
  return root;
}

const enforcing = {
  'reference-server/domain/rules.ts': [
    '/** Refuses a cancel outside PENDING. @rule b4-only-pending */',
    'export function assertPending(s: string): void {}',
    '/**',
    ' * One error shape.',
    ' * @rule ADR-001',
    ' */',
    'export const sendError = () => {};',
  ].join('\n'),
};
const checks = {
  'conformance/commands/cancel.ts': ['/** @checks b4-only-pending, ADR-001 */', 'export class CancelTransaction {}'].join('\n'),
};

afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

describe('rule index', () => {
  it('finds the one enforcing function and the checks of each rule and decision', async () => {
    await fixture({ ...enforcing, ...checks });
    expect(await ruleProblems(root)).toEqual([]);
    const index = await ruleIndex(root);
    expect(index.map((r) => [r.id, r.kind, r.spec, r.enforcedBy.map((s) => s.symbol), r.checkedBy.map((s) => s.symbol)])).toEqual([
      ['b4-only-pending', 'seed', ['schemas/Status.yaml#/x-state-machine/rejections'], ['assertPending'], ['CancelTransaction']],
      ['ADR-001', 'decision', ['schemas/Status.yaml:2'], ['sendError'], ['CancelTransaction']],
    ]);
    const md = await renderRuleIndex(['header'], root);
    expect(md).toContain(
      '| `b4-only-pending` | B4 only while PENDING. | `schemas/Status.yaml#/x-state-machine/rejections` | `reference-server/domain/rules.ts:assertPending` | `conformance/commands/cancel.ts:CancelTransaction` |',
    );
  });

  it('fails on a rule with no enforcing function', async () => {
    await fixture({ 'reference-server/domain/rules.ts': '/** @rule ADR-001 */\nexport function sendError() {}\n', ...checks });
    expect(await ruleProblems(root)).toEqual(['rule b4-only-pending: no enforcing function (tag one with @rule b4-only-pending)']);
  });

  it('fails on a rule enforced in two places', async () => {
    await fixture({
      ...enforcing,
      ...checks,
      'reference-server/handlers/partner.ts': '// @rule b4-only-pending\nfunction notPending() {}\n',
    });
    const problems = await ruleProblems(root);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^rule b4-only-pending: 2 enforcing functions \(.*assertPending, .*notPending\); one rule, one function$/);
  });

  it('fails on a rule with no conformance check, and does not count tests or a tag in code', async () => {
    await fixture({
      ...enforcing,
      'conformance/commands/cancel.ts': '/** @checks ADR-001 */\nexport class CancelTransaction {}\nconst s = "@checks b4-only-pending";\n',
      'conformance/suite.test.ts': '// @checks b4-only-pending\nit("cancels", () => {});\n',
    });
    expect(await ruleProblems(root)).toEqual(['rule b4-only-pending: no conformance check (tag it with @checks b4-only-pending)']);
  });

  it('fails on a location that does not resolve, a decision not stated in the spec, and an unknown tag', async () => {
    await fixture({
      ...enforcing,
      ...checks,
      'spec/rules.yaml': 'rules:\n  - id: b4-only-pending\n    seed: B4.\n    spec: schemas/Status.yaml#/x-state-machine/nowhere\n',
      'spec/schemas/Status.yaml': 'type: string\n',
      'sdk/browser/src/x.ts': '/** @rule no-such-rule */\nexport function x() {}\n',
    });
    expect(await ruleProblems(root)).toEqual([
      'rule b4-only-pending: schemas/Status.yaml#/x-state-machine/nowhere: the pointer does not resolve',
      'rule ADR-001: no place in spec/ states it',
      'tag names an unknown rule no-such-rule',
    ]);
  });

  it('takes the checks of a `checks: tests` rule from test files', async () => {
    await fixture({
      'spec/rules.yaml': 'rules:\n  - id: sdk-errors\n    seed: SDK errors.\n    spec: schemas/Status.yaml\n    checks: tests\n',
      'sdk/browser/src/service.ts': '/** @rule sdk-errors */\nexport function requireInit() {}\n',
      'reference-server/domain/rules.ts': '/** @rule ADR-001 */\nexport function sendError() {}\n',
      'conformance/commands/cancel.ts': '/** @checks ADR-001 */\nexport class CancelTransaction {}\n',
      'sdk/browser/sdk.test.ts':
        "// @checks sdk-errors\nit('throws Call init() first', () => requireInit());\n// @checks sdk-errors\nit('throws the seed\\'s \"messages\"', () => {});\n",
    });
    expect(await ruleProblems(root)).toEqual([]);
    expect((await ruleIndex(root))[0]!.checkedBy.map((s) => s.symbol)).toEqual([
      'throws Call init() first',
      'throws the seed\'s "messages"',
    ]);
  });

  describe('one hop per rule', () => {
    const spec = {
      'spec/schemas/Limit.yaml': 'limit: 100\nwindowSeconds: 900\n',
      'spec/schemas/Status.yaml': 'type: string\nx-decision: ADR-001\n',
    };
    const seed = (text: string) => ({
      'spec/rules.yaml': `rules:\n  - id: b4-only-pending\n    seed: ${JSON.stringify(text)}\n    spec: schemas/Status.yaml\n`,
    });

    it('shows the spec values of a row and refuses a number typed by hand, but not a status', async () => {
      await fixture({
        ...enforcing,
        ...checks,
        ...spec,
        ...seed(
          'B4 at most {{schemas/Limit.yaml#/limit}} per {{schemas/Limit.yaml#/windowSeconds}} s; otherwise 400, A1 401 INVALID_API_KEY.',
        ),
      });
      expect(await ruleProblems(root)).toEqual([]);
      expect((await ruleIndex(root))[0]!.text).toBe('B4 at most 100 per 900 s; otherwise 400, A1 401 INVALID_API_KEY.');
      await fixture({
        ...enforcing,
        ...checks,
        ...spec,
        ...seed('B4 excess gets 429 with retry_after 60, {{schemas/Limit.yaml#/nowhere}}; 404 INVALID_API_KEY.'),
      });
      expect(await ruleProblems(root)).toEqual([
        'rule b4-only-pending: {{schemas/Limit.yaml#/nowhere}} is no number or string in spec/',
        'rule b4-only-pending: "60" is typed in spec/rules.yaml; take it from the spec with {{file#/pointer}}',
        'rule b4-only-pending: 404 INVALID_API_KEY, but INVALID_API_KEY is 401 in ErrorCode',
      ]);
    });

    it('refuses @rule on a predicate with one caller (the caller answers), not on one shared by several', async () => {
      const predicate = [
        '/** @rule b4-only-pending */',
        'export function isPending(s: string): boolean {',
        "  return s === 'PENDING';",
        '}',
        '/** @rule ADR-001 */',
        'export const sendError = () => {};',
      ].join('\n');
      const caller =
        "import { isPending } from './rules.ts';\nexport function cancel(s: string) {\n  if (!isPending(s)) throw new Error('no');\n}\n";
      await fixture({ ...checks, 'reference-server/domain/rules.ts': predicate, 'reference-server/handlers/cancel.ts': caller });
      expect(await ruleProblems(root)).toEqual([
        'rule b4-only-pending: @rule is on isPending, a predicate called only at reference-server/handlers/cancel.ts:3: tag the function there, which answers',
      ]);
      await fixture({
        ...checks,
        'reference-server/domain/rules.ts': predicate,
        'reference-server/handlers/cancel.ts': caller,
        'reference-server/handlers/read.ts': 'export const read = (s: string) => isPending(s);\n',
      });
      expect(await ruleProblems(root)).toEqual([]);
    });

    it('checks that a guard names a file and what is in it, and lists it beside the decider', async () => {
      const decider = (target: string) => ({
        'reference-server/domain/rules.ts': [
          '/**',
          ' * @rule b4-only-pending',
          ` * @guard b4-only-pending ${target}`,
          ' */',
          'export function assertPending(s: string): void {}',
          '/** @rule ADR-001 */',
          'export const sendError = () => {};',
        ].join('\n'),
        'reference-server/store/0001.sql': 'CREATE UNIQUE INDEX one_pending ON t (x);\n',
      });
      await fixture({ ...checks, ...decider('reference-server/store/0001.sql:one_pending') });
      expect(await ruleProblems(root)).toEqual([]);
      expect(await renderRuleIndex(['h'], root)).toContain(
        '`reference-server/domain/rules.ts:assertPending`<br>guard: `reference-server/store/0001.sql:one_pending`',
      );
      await fixture({ ...checks, ...decider('reference-server/store/0001.sql:two_pending') });
      expect(await ruleProblems(root)).toEqual([
        'rule b4-only-pending: @guard at reference-server/domain/rules.ts:5: reference-server/store/0001.sql does not name two_pending',
      ]);
      await fixture({ ...checks, ...decider('reference-server/store/0002.sql:one_pending') });
      expect(await ruleProblems(root)).toEqual([
        'rule b4-only-pending: @guard at reference-server/domain/rules.ts:5 names reference-server/store/0002.sql, which does not exist',
      ]);
    });

    it('refuses a test check that neither calls the decider nor drives a server or page', async () => {
      await fixture({
        'spec/rules.yaml': 'rules:\n  - id: sdk-errors\n    seed: SDK errors.\n    spec: schemas/Status.yaml\n    checks: tests\n',
        'sdk/browser/src/service.ts': '/** @rule sdk-errors */\nexport function requireInit() {}\n',
        'reference-server/domain/rules.ts': '/** @rule ADR-001 */\nexport function sendError() {}\n',
        'conformance/commands/cancel.ts': '/** @checks ADR-001 */\nexport class CancelTransaction {}\n',
        'sdk/browser/sdk.test.ts': "// @checks sdk-errors\nit('has texts', () => expect(TEXTS).toBeDefined());\n",
        'sdk/browser/api.test.ts': "// @checks sdk-errors\nit('answers over HTTP', async () => { await api('GET', '/'); });\n",
      });
      expect(await ruleProblems(root)).toEqual([
        'rule sdk-errors: the test sdk/browser/sdk.test.ts:has texts neither calls requireInit nor drives a server or page',
      ]);
    });
  });

  describe("files on a rule's path", () => {
    const model = {
      'model/transitions.ts':
        '/** @rule b4-only-pending */\nexport function rejectionOf(op: string, s: string): boolean {\n  return s !== op;\n}\n',
      'reference-server/domain/rules.ts': '/** @rule ADR-001 */\nexport const sendError = () => {};\n',
    };
    /** The path of b4-only-pending in these fixtures, its judge aside: spec, model, binding, check. */
    const fourFiles = [
      'spec/schemas/Status.yaml',
      'model/transitions.ts',
      'reference-server/domain/stateMachine.ts',
      'conformance/commands/cancel.ts',
    ];
    const binding = (tag: string) =>
      `import { rejectionOf } from '../../model/transitions.ts';\n/** ${tag} */\nexport function attempt(s: string) {\n  return rejectionOf('b4', s);\n}\n`;

    it('counts spec, model, binding, check and judge, and refuses a caller of the model function that is off the list', async () => {
      await fixture({ ...model, ...checks, 'reference-server/domain/stateMachine.ts': binding('The server binding.') });
      expect(await ruleProblems(root)).toEqual([
        "rule b4-only-pending: reference-server/domain/stateMachine.ts calls its model function rejectionOf, so it is on the rule's path: tag the caller (@binds in the server, @checks in the suite, @judges in the judge)",
      ]);
      await fixture({
        ...model,
        ...checks,
        'reference-server/domain/stateMachine.ts': binding('@binds b4-only-pending'),
        'judge/refusals.ts': '/** @judges b4-only-pending */\nexport function judge() {}\n',
      });
      expect(await ruleProblems(root)).toEqual([]);
      const r = (await ruleIndex(root)).find((x) => x.id === 'b4-only-pending')!;
      expect(r.files).toEqual([...fourFiles, 'judge/refusals.ts']);
      const md = await renderRuleIndex(['header'], root);
      expect(md).toContain('binds: `reference-server/domain/stateMachine.ts:attempt`');
      expect(md).toContain('judge: `judge/refusals.ts:judge` | 5 |');
    });

    it('refuses a judge spread over two files of judge/', async () => {
      await fixture({
        ...model,
        ...checks,
        'judge/a.ts': '/** @judges b4-only-pending */\nexport function a() {}\n',
        'judge/b.ts': '/** @judges b4-only-pending */\nexport function b() {}\n',
      });
      expect(await ruleProblems(root)).toEqual(['rule b4-only-pending: judged in 2 files (judge/a.ts, judge/b.ts); one judge']);
    });

    it("takes a judge of model/ that judge/ calls as the judge's, and leaves the calling file off the path", async () => {
      const judgeInModel = {
        ...model,
        'model/transitions.ts': `${model['model/transitions.ts']}/** @judges b4-only-pending */\nexport function refusedFrom(s: string): boolean {\n  return rejectionOf('b4', s);\n}\n`,
      };
      await fixture({
        ...judgeInModel,
        ...checks,
        'reference-server/domain/stateMachine.ts': binding('@binds b4-only-pending'),
        'judge/statuses.ts':
          "import { refusedFrom } from '../model/transitions.ts';\nexport const masks = (s: string) => refusedFrom(s);\n",
      });
      expect(await ruleProblems(root)).toEqual([]);
      const r = (await ruleIndex(root)).find((x) => x.id === 'b4-only-pending')!;
      expect(r.files).toEqual(fourFiles);
      // a judge judge/ never calls is not the judge's
      await fixture({ ...judgeInModel, ...checks, 'reference-server/domain/stateMachine.ts': binding('@binds b4-only-pending') });
      expect(await ruleProblems(root)).toEqual([
        'rule b4-only-pending: its judge model/transitions.ts:refusedFrom lies outside judge/ and no file of judge/ calls it',
      ]);
    });
  });

  it('does not take a decision as stated by rules.yaml', async () => {
    await fixture({
      ...enforcing,
      ...checks,
      'spec/rules.yaml':
        'rules:\n  - id: b4-only-pending\n    seed: B4.\n    spec: schemas/Status.yaml\ndecisions:\n  ADR-001:\n    checks: conformance # ADR-001\n',
      'spec/schemas/Status.yaml': 'type: string\n',
    });
    expect(await ruleProblems(root)).toEqual(['rule ADR-001: no place in spec/ states it']);
  });

  describe('reads: the check computes the expectation from the spec fact in its own file', () => {
    const yaml = (reads: string) =>
      `rules:\n  - id: b4-only-pending\n    seed: B4 only while PENDING.\n    spec: schemas/Status.yaml#/x-state-machine/rejections\n    reads: ${reads}\n`;
    /** A check file that reads the fact itself. */
    const readingCheck = [
      "import { stateMachine } from '../../generated/index.ts';",
      '/** @checks b4-only-pending, ADR-001 */',
      'export class CancelTransaction { allowed = stateMachine.rejections; }',
    ];
    const helper = {
      'conformance/spec.ts': [
        "import { stateMachine } from '../generated/index.ts';",
        'export const rejectionOf = (op: string) => stateMachine.rejections.find((r) => r.op === op);',
      ].join('\n'),
    };

    it('passes when the check file reads the fact in its code', async () => {
      await fixture({
        ...enforcing,
        'spec/rules.yaml': yaml('rejections'),
        'conformance/commands/cancel.ts': readingCheck.join('\n'),
      });
      expect(await ruleProblems(root)).toEqual([]);
    });

    it('fails on a rule spread over a fourth file: the check calls a helper that reads the fact (a comment naming it does not count)', async () => {
      await fixture({
        ...enforcing,
        ...helper,
        'spec/rules.yaml': yaml('rejections'),
        'conformance/commands/cancel.ts': [
          "import { rejectionOf } from '../spec.ts';",
          '/** x-state-machine rejections decide. @checks b4-only-pending, ADR-001 */',
          'export class CancelTransaction { allowed = rejectionOf("cancel"); } // rejections',
        ].join('\n'),
      });
      expect(await ruleProblems(root)).toEqual([
        'rule b4-only-pending: no checking file (conformance/commands/cancel.ts) reads rejections in its code; conformance/spec.ts does: move the expectation into the check',
      ]);
    });

    it('fails on a rule whose checks lie in two files (a fourth file to open), even when one reads the fact', async () => {
      await fixture({
        ...enforcing,
        'spec/rules.yaml': yaml('rejections'),
        'conformance/commands/cancel.ts': readingCheck.join('\n'),
        'conformance/world.ts': ['/** @checks b4-only-pending */', 'export function checkStillPending(): void {}'].join('\n'),
      });
      expect(await ruleProblems(root)).toEqual([
        'rule b4-only-pending: checked in 2 files (conformance/commands/cancel.ts, conformance/world.ts); a rule with reads: is checked in one file (spec, decider, check)',
      ]);
    });

    it('passes with two checks in the one file', async () => {
      await fixture({
        ...enforcing,
        'spec/rules.yaml': yaml('rejections'),
        'conformance/commands/cancel.ts': [
          ...readingCheck,
          '/** @checks b4-only-pending */',
          'export function checkStillPending(): void {}',
        ].join('\n'),
      });
      expect(await ruleProblems(root)).toEqual([]);
    });

    it('takes the name whole (an x- key, not a longer name containing it)', async () => {
      await fixture({
        ...enforcing,
        'spec/rules.yaml': yaml('x-amount-consistency'),
        'conformance/commands/cancel.ts': [
          '/** @checks b4-only-pending, ADR-001 */',
          "export class CancelTransaction { a = s['x-amount-consistency-v2']; }",
        ].join('\n'),
      });
      expect(await ruleProblems(root)).toEqual([
        'rule b4-only-pending: no checking file (conformance/commands/cancel.ts) reads x-amount-consistency in its code',
      ]);
    });
  });
});
