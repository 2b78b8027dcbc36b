/**
 * The contract gate itself: the whole lint passes on the committed spec, generated/ is
 * what `npm run generate` would write, and each consistency check does fail when the
 * documents disagree (so a green lint means something).
 */
import { describe, expect, it } from 'vitest';
import { bundleApi, listApis, parseAsyncApi } from './lib/spec.ts';
import { checkErrorExamples, checkStateMachine, checkValidationErrorDeclared, checkWebhooksAgainstAsyncApi, type AsyncMessage } from './lib/consistency.ts';
import { lintContract } from './lint.ts';
import { renderGenerated, staleGenerated } from './generate.ts';

async function fixtures() {
  const apis = await listApis();
  const doc = await bundleApi(apis.find((a) => a.variant === 1)!);
  const { document } = await parseAsyncApi();
  const messages: AsyncMessage[] = document.messages().all().map((m) => ({
    name: String(m.name()),
    payload: (m.payload()!.json() as { schema: unknown }).schema,
    headers: (m.headers()!.json() as { schema: unknown }).schema,
  }));
  return { doc: doc as Record<string, any>, messages };
}

describe('npm run lint', () => {
  it('passes on the committed contract with 0 errors and 0 warnings', async () => {
    const lines: string[] = [];
    expect(await lintContract((l) => lines.push(l))).toEqual([]);
    expect(lines).toContain('redocly lint merchant-v1: 0 errors, 0 warnings');
    expect(lines).toContain('redocly lint merchant-v2: 0 errors, 0 warnings');
  }, 120_000);
});

describe('npm run generate', () => {
  it('would not change generated/ (regenerate and commit after editing spec/)', async () => {
    expect(await staleGenerated()).toEqual([]);
  }, 60_000);
  it('is deterministic and marks every file do-not-edit', async () => {
    const [a, b] = [await renderGenerated(), await renderGenerated()];
    expect([...a.entries()]).toEqual([...b.entries()]);
    for (const [file, content] of a) expect(content.slice(0, 200), file).toMatch(/GENERATED FILE — DO NOT EDIT/);
  }, 60_000);
});

describe('consistency checks catch drift', () => {
  it('a webhook payload that differs from the AsyncAPI message', async () => {
    const { doc, messages } = await fixtures();
    expect(checkWebhooksAgainstAsyncApi(1, doc, messages)).toEqual([]);
    const altered = structuredClone(messages);
    (altered[0]!.payload as any).properties.extra = { type: 'string' };
    expect(checkWebhooksAgainstAsyncApi(1, doc, altered).join('\n')).toMatch(/payload of webhook .* differs/);
    expect(checkWebhooksAgainstAsyncApi(1, doc, messages.slice(1)).join('\n')).toMatch(/differ from AsyncAPI messages/);
  });
  it('a transition that emits an event no document defines', async () => {
    const { doc } = await fixtures();
    expect(checkStateMachine(1, doc)).toEqual([]);
    const sm = doc.components.schemas.TransactionStatus['x-state-machine'];
    sm.transitions.find((t: any) => t.id === 'expire').emits = 'transaction.timed_out';
    expect(checkStateMachine(1, doc).join('\n')).toMatch(/emits transaction.timed_out, which no webhook/);
  });
  it('a rejection whose code the operation does not declare', async () => {
    const { doc } = await fixtures();
    doc.components.schemas.TransactionStatus['x-state-machine'].rejections[0].code = 'NOT_ALLOWED';
    expect(checkStateMachine(1, doc).join('\n')).toMatch(/NOT_ALLOWED is not declared/);
  });
  it('an error example whose code is not declared', async () => {
    const { doc } = await fixtures();
    expect(checkErrorExamples(1, doc)).toEqual([]);
    doc.components.responses.TransactionNotFound.content['application/json'].examples.TRANSACTION_NOT_FOUND.value.error.code = 'NOT_FOUND';
    expect(checkErrorExamples(1, doc).join('\n')).toMatch(/uses code NOT_FOUND, not declared/);
  });

  it('an operation without 400 VALIDATION_ERROR (ADR-022)', async () => {
    const { doc } = await fixtures();
    expect(checkValidationErrorDeclared(1, doc)).toEqual([]);
    delete doc.paths['/api/v1/sandbox/clock'].get.responses['400'];
    expect(checkValidationErrorDeclared(1, doc)).toEqual(['Variant 1 sandboxGetClock: declares no 400 VALIDATION_ERROR (ADR-022: an undeclared query parameter gets one)']);
  });
});
