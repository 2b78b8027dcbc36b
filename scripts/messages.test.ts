/** One source for messages: the lint holds the spec's examples, the guides and the README to the server's catalogue. */
import { describe, expect, it } from 'vitest';
import { catalogueValues, ERROR_MESSAGES, errorMessage, matchesCatalogue } from '../lib/error-messages.ts';
import { bundleApi, listApis } from './lib/spec.ts';
import { checkDocumentMessages, checkExampleMessages, checkReadmeLinks, errorExamples } from './lib/messages.ts';

async function docs() {
  const apis = await listApis();
  return Promise.all(apis.map((a) => bundleApi(a)));
}

describe('error messages: one source', () => {
  it('the catalogue formats and recognises its templates', () => {
    expect(errorMessage('RATE_LIMIT_EXCEEDED', { seconds: 12 })).toBe('Too many requests, retry after 12 seconds');
    expect(() => errorMessage('RATE_LIMIT_EXCEEDED')).toThrow(/no value for \{seconds\}/);
    expect(matchesCatalogue('TRANSACTION_NOT_FOUND', 'Transaction not found')).toBe(true);
    expect(matchesCatalogue('TRANSACTION_NOT_FOUND', 'Transaction not found.')).toBe(false);
    expect(matchesCatalogue('VALIDATION_ERROR', 'anything')).toBeUndefined();
    expect(Object.keys(ERROR_MESSAGES)).toContain('NOT_READY');
  });
  it('reads back the values a message put in its template', () => {
    const message = errorMessage('TRANSACTION_NOT_PENDING', { required: 'PENDING', status: 'EXPIRED' });
    expect(catalogueValues('TRANSACTION_NOT_PENDING', message)).toEqual({ required: 'PENDING', status: 'EXPIRED' });
    expect(catalogueValues('TRANSACTION_NOT_PENDING', `${message}.`)).toBeNull();
    expect(catalogueValues('VALIDATION_ERROR', message)).toBeUndefined();
  });
  it('the spec, the guides and the README agree with it today', async () => {
    const ds = await docs();
    for (const [i, d] of ds.entries()) expect(checkExampleMessages(i + 1, d)).toEqual([]);
    expect(await checkDocumentMessages(ds)).toEqual([]);
    expect(await checkReadmeLinks()).toEqual([]);
  });
  it('a spec example with a message the server does not send is a problem', async () => {
    const [d] = await docs();
    const ex = errorExamples(d!).find((e) => e.code === 'TRANSACTION_NOT_FOUND');
    expect(ex).toBeDefined();
    const node = (
      d!.components as {
        responses: Record<string, { content: Record<string, { examples: Record<string, { value: { error: { message: string } } }> }> }>;
      }
    ).responses.TransactionNotFound!;
    node.content['application/json']!.examples.TRANSACTION_NOT_FOUND!.value.error.message = 'Transaction not found.';
    expect(checkExampleMessages(1, d!).join('\n')).toMatch(
      /example TRANSACTION_NOT_FOUND message "Transaction not found\." is not a message the server sends/,
    );
  });
  it.each([
    ['TOO_MANY_PAYMENT_INTENTS', 'PaymentIntentUnprocessable'],
    ['INVALID_REDIRECT_URL', 'PaymentIntentBadRequest'],
  ])('the payment intent refusals (%s) are catalogued too: an example the server does not send is a problem', async (code, response) => {
    const [d] = await docs();
    const node = (
      d!.components as {
        responses: Record<string, { content: Record<string, { examples: Record<string, { value: { error: { message: string } } }> }> }>;
      }
    ).responses[response]!.content['application/json']!.examples[code]!.value.error;
    node.message = `${node.message}, or not`;
    expect(checkExampleMessages(1, d!).join('\n')).toContain(`example ${code} message "${node.message}" is not a message the server sends`);
  });
  it('a guide quoting another message, or a validation message the spec does not show, is a problem', async () => {
    const ds = await docs();
    const files = [
      { rel: 'spec/guides/x.md', text: 'text\n{ "error": { "code": "TRANSACTION_NOT_FOUND", "message": "Transaction not found." } }' },
      { rel: 'spec/guides/y.md', text: '{ "error": { "code": "VALIDATION_ERROR", "message": "something vague" } }' },
      {
        rel: 'spec/guides/z.md',
        text: '{ "error": { "code": "TRANSACTION_NOT_PENDING", "message": "Transaction is not in PENDING status (current status: APPROVED)" } }',
      },
    ];
    expect(await checkDocumentMessages(ds, files)).toEqual([
      'spec/guides/x.md:2: TRANSACTION_NOT_FOUND message "Transaction not found." is not a message the server sends (lib/error-messages.ts or the spec\'s examples of TRANSACTION_NOT_FOUND)',
      'spec/guides/y.md:1: VALIDATION_ERROR message "something vague" is not a message the server sends (lib/error-messages.ts or the spec\'s examples of VALIDATION_ERROR)',
    ]);
  });
  it('README links outside the repository are problems', async () => {
    expect(
      await checkReadmeLinks(
        '[a](spec/README.md) [b](../shared/seed/merchant-payment-service.md) [c](https://example.com/x) <http://127.0.0.1:4010/demo> [d](missing.md)',
      ),
    ).toEqual([
      'README.md: link ../shared/seed/merchant-payment-service.md is not a file of the repository',
      'README.md: link https://example.com/x leaves the repository',
      'README.md: link missing.md is not a file of the repository',
    ]);
  });
});
