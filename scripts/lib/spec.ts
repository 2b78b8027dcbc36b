/**
 * Reading the contract from `spec/`: the APIs named in `redocly.yaml`, bundled with
 * Redocly's own bundler (the same one `redocly lint` and `redocly build-docs` use), and
 * the AsyncAPI document parsed by `@asyncapi/parser`.
 */
import { bundle, loadConfig } from '@redocly/openapi-core';
import { DiagnosticSeverity, Parser, fromFile } from '@asyncapi/parser';
import { ASYNCAPI_FILE, REDOCLY_CONFIG, ROOT } from './paths.ts';
import path from 'node:path';

export type Variant = 1 | 2;
export const VARIANTS: readonly Variant[] = [1, 2];

export interface ApiEntry {
  name: string;
  variant: Variant;
  root: string;
  typesOutput: string;
}

/** The APIs of `redocly.yaml` (`merchant-v1`, `merchant-v2`). */
export async function listApis(): Promise<ApiEntry[]> {
  const config = await loadConfig({ configPath: REDOCLY_CONFIG });
  const apis = config.resolvedConfig.apis ?? {};
  return Object.entries(apis).map(([name, api]) => {
    const match = /^merchant-v(\d)$/.exec(name);
    if (!match) throw new Error(`redocly.yaml: API name ${name} is not merchant-v<variant>`);
    const out = (api as { 'x-openapi-ts'?: { output?: string } })['x-openapi-ts']?.output;
    if (!out) throw new Error(`redocly.yaml: API ${name} has no x-openapi-ts.output`);
    return {
      name,
      variant: Number(match[1]) as Variant,
      root: path.resolve(ROOT, api.root),
      typesOutput: path.resolve(ROOT, out),
    };
  });
}

/** Bundles one API into a single document with internal `$ref`s only. */
export async function bundleApi(api: ApiEntry): Promise<Record<string, unknown>> {
  const config = await loadConfig({ configPath: REDOCLY_CONFIG });
  const result = await bundle({ ref: api.root, config: config.forAlias?.(api.name) ?? config, dereference: false });
  const problems = result.problems.filter((p) => p.severity === 'error');
  if (problems.length > 0) {
    throw new Error(`bundle ${api.name}: ${problems.map((p) => p.message).join('; ')}`);
  }
  return result.bundle.parsed as Record<string, unknown>;
}

export interface AsyncApiParse {
  document: NonNullable<Awaited<ReturnType<ReturnType<typeof fromFile>['parse']>>['document']>;
  diagnostics: Array<{ severity: number; code: string | number; message: string; path: Array<string | number> }>;
}

/** Parses and validates `spec/asyncapi.yaml`, external `$ref`s resolved. */
export async function parseAsyncApi(file: string = ASYNCAPI_FILE): Promise<AsyncApiParse> {
  const parser = new Parser();
  const { document, diagnostics } = await fromFile(parser, file).parse();
  if (!document) {
    const errors = diagnostics
      // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-comparison -- diagnostics carry the DiagnosticSeverity of a nested copy of @stoplight/types, the same enum values under another type
      .filter((d) => d.severity === DiagnosticSeverity.Error)
      .map((d) => `${d.code}: ${d.message} at ${d.path.join('.')}`);
    throw new Error(`asyncapi.yaml does not parse:\n${errors.join('\n')}`);
  }
  return { document, diagnostics: diagnostics };
}
