/**
 * The three documents of a contract tree, resolved for comparison: each variant's OpenAPI document
 * bundled by the project's bundler (`scripts/lib/spec.ts`) and dereferenced, and the AsyncAPI
 * document bundled and dereferenced by the same Redocly bundler (npm run lint validates it with
 * @asyncapi/parser; the diff only needs it resolved, and the parser's validation is slow). Facts are read from these resolved documents, so a fact
 * stated once and `$ref`ed from many places is seen wherever it applies.
 */
import path from 'node:path';
import { ROOT } from '../lib/paths.ts';
import { bundle, loadConfig } from '@redocly/openapi-core';
import { REDOCLY_CONFIG } from '../lib/paths.ts';
import { bundleApi, listApis } from '../lib/spec.ts';
import { deref } from '../lib/consistency.ts';
import type { ContractTree } from './tree.ts';
import { isJson, textOf, type Json } from '../../lib/json.ts';

export type { Json };

export interface ContractDocument {
  /** `merchant-v1`, `merchant-v2` (the APIs of redocly.yaml) or `webhooks` (spec/asyncapi.yaml). */
  key: string;
  kind: 'openapi' | 'asyncapi';
  /** Absolute path of the root source file. */
  root: string;
  /** Bundled, every `$ref` resolved. */
  resolved: Json;
  version: string;
}

export const ASYNCAPI_KEY = 'webhooks';
const ASYNCAPI_REL = path.join('spec', 'asyncapi.yaml');

async function bundleAsyncApi(root: string): Promise<Json> {
  const config = await loadConfig({ configPath: REDOCLY_CONFIG });
  const result = await bundle({ ref: root, config, dereference: true });
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) throw new Error(`bundle ${root}: ${errors.map((p) => p.message).join('; ')}`);
  return result.bundle.parsed as Json;
}

function versionOf(doc: Json): string {
  return textOf((isJson(doc.info) ? doc.info.version : undefined) ?? '');
}

/** The root files of a tree's documents, by key (relative to the tree). */
export async function documentRoots(): Promise<Array<{ key: string; kind: 'openapi' | 'asyncapi'; rel: string; variant?: 1 | 2 }>> {
  const apis = await listApis();
  return [
    ...apis.map((api) => ({ key: api.name, kind: 'openapi' as const, rel: path.relative(ROOT, api.root), variant: api.variant })),
    { key: ASYNCAPI_KEY, kind: 'asyncapi' as const, rel: ASYNCAPI_REL },
  ];
}

export async function loadDocuments(tree: ContractTree): Promise<ContractDocument[]> {
  const out: ContractDocument[] = [];
  for (const entry of await documentRoots()) {
    const root = path.join(tree.dir, entry.rel);
    if (entry.kind === 'openapi') {
      const bundled = await bundleApi({ name: entry.key, variant: entry.variant!, root, typesOutput: '' });
      const resolved = deref(bundled, bundled) as Json;
      out.push({ key: entry.key, kind: 'openapi', root, resolved, version: versionOf(resolved) });
    } else {
      const resolved = await bundleAsyncApi(root);
      out.push({ key: entry.key, kind: 'asyncapi', root, resolved, version: versionOf(resolved) });
    }
  }
  return out;
}
