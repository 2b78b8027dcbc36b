/**
 * `paylater init server DIR --variant 1|2 [--force]`: writes a runnable TypeScript project built
 * on `paylater-contract/server`: a typed stub for every operation of the variant (each answers
 * 501 until written, ADR-050), one operation worked through (getPartnerTransaction, on a small
 * in-memory store), `npm start`, and `npm test` running `runConformance` against the project,
 * which fails naming what is missing. Refuses a non-empty DIR unless `--force`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { operationTables } from '../../server/router.ts';
import { packageRoot } from '../../lib/package-root.ts';

const USAGE = `Usage: paylater init server DIR --variant 1|2 [--force]

Writes a TypeScript server project in DIR built on paylater-contract/server: a typed stub for
every operation of the variant (each answers 501 until you write it), getPartnerTransaction
worked through on an in-memory store, \`npm start\`, and \`npm test\` (the conformance suite
against the project: it fails naming the operations still missing).

Options:
  --variant 1|2   the contract variant the server implements (required)
  --force         write into a non-empty DIR (files of the same name are replaced)
  -h, --help      this help
`;

/** The example operation the scaffold works through. */
const EXAMPLE = 'getPartnerTransaction';

interface PackageJson {
  version: string;
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

/**
 * The version range of this package when it came from a registry, read from the hidden lockfile
 * npm writes beside what it installs (`node_modules/.package-lock.json`, whose `resolved` is the
 * registry's URL for a registry install and a `file:` or `git+` spec otherwise); null when it did
 * not (a tarball, a git checkout, `npm link`, this repository).
 */
export function registryRange(root: string, version: string): string | null {
  const modules = path.dirname(root);
  if (path.basename(modules) !== 'node_modules') return null;
  let lock: { packages?: Record<string, { resolved?: string }> };
  try {
    lock = JSON.parse(readFileSync(path.join(modules, '.package-lock.json'), 'utf8')) as typeof lock;
  } catch {
    return null;
  }
  const entry = lock.packages?.[path.relative(path.dirname(modules), root).split(path.sep).join('/')];
  return entry?.resolved && /^https?:\/\//.test(entry.resolved) ? `^${version}` : null;
}

/**
 * Packs this package (as installed, or as built in a checkout) into `dir`, the way `npm pack`
 * does for a registry (the package.json `files`, no scripts run); returns the tarball's name.
 */
function packInto(root: string, dir: string): string {
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  if (packed.status !== 0)
    throw new InitError(`npm pack in ${root} failed (${packed.error?.message ?? `exit ${packed.status}`}): ${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  if (!info) throw new InitError(`npm pack in ${root} wrote no tarball`);
  return info.filename;
}

class InitError extends Error {}

/** The files of the project, by path relative to DIR; `dependency` is how it depends on this package (a range or a `file:` spec). */
export function scaffoldFiles(variant: 1 | 2, name: string, dependency: string): Map<string, string> {
  const own = JSON.parse(readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as PackageJson;
  const ids = Object.keys(operationTables[variant]);
  const files = new Map<string, string>();
  files.set(
    'package.json',
    `${JSON.stringify(
      {
        name,
        version: '0.1.0',
        private: true,
        type: 'module',
        engines: { node: own.engines.node },
        scripts: {
          start: 'node --experimental-strip-types src/main.ts',
          test: 'node --experimental-strip-types --test test/conformance.test.ts',
          typecheck: 'tsc --noEmit -p tsconfig.json',
        },
        dependencies: { 'paylater-contract': dependency, express: own.dependencies.express },
        devDependencies: {
          '@types/express': own.devDependencies['@types/express'],
          '@types/node': own.devDependencies['@types/node'],
          typescript: own.devDependencies.typescript,
        },
      },
      null,
      2,
    )}\n`,
  );
  files.set(
    'tsconfig.json',
    `${JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          verbatimModuleSyntax: true,
          erasableSyntaxOnly: true,
          skipLibCheck: true,
          types: ['node'],
        },
        include: ['src', 'test'],
      },
      null,
      2,
    )}\n`,
  );
  files.set('src/store.ts', STORE);
  files.set('src/handlers.ts', handlersFile(variant, ids));
  files.set('src/app.ts', appFile(variant));
  files.set('src/main.ts', MAIN);
  files.set('test/conformance.test.ts', testFile(variant));
  files.set('README.md', readme(variant, name, dependency));
  return files;
}

const STORE = `/** A small in-memory store: the merchants and their keys, and the partner transactions. Replace it with your database. */
export interface Merchant {
  id: string;
  name: string;
  storeName: string;
  apiKey: string;
}

/** Two test merchants: the conformance suite needs keys of two different merchants (ownership checks). */
export const merchants: Merchant[] = [
  { id: 'm_a', name: 'Shop A', storeName: 'Shop A', apiKey: process.env.PAYLATER_KEY_A ?? 'sk_test_scaffold_a_000000000001' },
  { id: 'm_b', name: 'Shop B', storeName: 'Shop B', apiKey: process.env.PAYLATER_KEY_B ?? 'sk_test_scaffold_b_000000000002' },
];

export function merchantByKey(key: string | undefined): Merchant | undefined {
  return key === undefined ? undefined : merchants.find((m) => m.apiKey === key);
}

/** A stored partner transaction: the body the API answers, and whose it is. */
export interface StoredTransaction<T> {
  merchantId: string;
  record: T;
}

export class MemoryStore<T extends { id: string }> {
  readonly #byId = new Map<string, StoredTransaction<T>>();
  put(merchantId: string, record: T): void {
    this.#byId.set(record.id, { merchantId, record });
  }
  /** The merchant's transaction \`id\`; undefined when it does not exist or is another merchant's (both answer 404). */
  get(merchantId: string, id: string): T | undefined {
    const t = this.#byId.get(id);
    return t && t.merchantId === merchantId ? t.record : undefined;
  }
}
`;

function handlersFile(variant: 1 | 2, ids: string[]): string {
  const stubs = ids.filter((id) => id !== EXAMPLE).map((id) => `  ${id}: notImplemented,`);
  return `/**
 * One handler per operation of Variant ${variant}, typed by the contract: a handler that returns an
 * undeclared status or a body of the wrong shape does not compile (\`npm run typecheck\`).
 * Each stub answers 501 until you write it; \`npm test\` names the operations still missing.
 */
import { notImplemented, type V${variant} } from 'paylater-contract/server';
import { MemoryStore, type Merchant } from './store.ts';

type Transaction = Extract<V${variant}.Response<'${EXAMPLE}'>, { status: 200 }>['body'];

export const transactions = new MemoryStore<Transaction>();

export const handlers: V${variant}.Handlers<Merchant> = {
  /** The worked example: the caller's transaction, or 404 TRANSACTION_NOT_FOUND (another merchant's too). */
  async ${EXAMPLE}({ params }, { caller }) {
    const record = transactions.get(caller.id, params.transactionId);
    if (!record) return { status: 404, body: { error: { code: 'TRANSACTION_NOT_FOUND', message: 'Transaction not found' } } };
    return { status: 200, body: record };
  },
${stubs.join('\n')}
};
`;
}

function appFile(variant: 1 | 2): string {
  return `/** The app: the contract router of Variant ${variant} with the handlers, then the JSON 404. */
import express from 'express';
import { ApiError, createContractRouter, routeNotFound } from 'paylater-contract/server';
import { handlers } from './handlers.ts';
import { merchantByKey, type Merchant } from './store.ts';

export function createApp(): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(
    createContractRouter<${variant}, Merchant>({
      variant: ${variant},
      handlers,
      /** The caller of an operation with a security scheme: the merchant of its key (session tokens: not written yet). */
      authenticate(req, operation): Merchant {
        const header = operation.auth!.header;
        if (operation.auth!.scheme === 'SessionToken') throw new ApiError('INVALID_SESSION_TOKEN', 'Invalid or expired session token');
        const merchant = merchantByKey(req.get(header));
        if (!merchant) throw new ApiError('INVALID_API_KEY', 'Invalid API key');
        return merchant;
      },
    }),
  );
  app.use(routeNotFound);
  return app;
}
`;
}

const MAIN = `/** \`npm start\`: serves the app on 127.0.0.1:$PORT (default 4010). */
import { createApp } from './app.ts';

const port = Number(process.env.PORT ?? 4010);
const server = createApp().listen(port, '127.0.0.1', () => {
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  console.log(\`listening on http://127.0.0.1:\${actual}\`);
});
`;

function testFile(variant: 1 | 2): string {
  return `/**
 * \`npm test\`: the contract's conformance suite against this server. It fails until every
 * operation is written, naming each finding's operation (a stub answers 501).
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { runConformance } from 'paylater-contract/conformance';
import { notImplemented } from 'paylater-contract/server';
import { createApp } from '../src/app.ts';
import { handlers } from '../src/handlers.ts';
import { merchants } from '../src/store.ts';

let baseUrl = '';
let close = (): void => {};
before(async () => {
  const server = createApp().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseUrl = \`http://127.0.0.1:\${(server.address() as AddressInfo).port}\`;
  close = () => server.close();
});
after(() => close());

test('the server conforms to Variant ${variant} of the contract', async () => {
  const result = await runConformance({ baseUrl, apiKey: merchants[0]!.apiKey, otherApiKey: merchants[1]!.apiKey, variant: ${variant}, runs: 10 });
  const lines = result.findings.map((f) => \`- \${f.operation}: \${f.message}\`);
  const stubs = Object.entries(handlers).filter(([, h]) => h === notImplemented).map(([id]) => id);
  assert.equal(
    result.findings.length,
    0,
    \`\${result.findings.length} finding(s):\\n\${lines.join('\\n')}\\nstill stubs (answering 501): \${stubs.join(', ') || 'none'}\`,
  );
});
`;
}

function readme(variant: 1 | 2, name: string, dependency: string): string {
  const source = dependency.startsWith('file:')
    ? `\n\`paylater-contract\` is installed from \`${dependency.slice('file:'.length)}\`, the package as \`paylater init\` found it
(packed: it did not come from a registry). Once a registry holds it, depend on its version instead.\n`
    : '';
  return `# ${name}

A server of the paylater contract (Variant ${variant}), scaffolded by \`paylater init server\`.
${source}
- \`src/handlers.ts\`: one typed handler per operation. Each stub answers 501 until written;
  \`${EXAMPLE}\` is worked through on the in-memory store of \`src/store.ts\`.
- \`npm start\`: serves on http://127.0.0.1:4010 (\`PORT\` to change).
- \`npm run typecheck\`: a handler answering an undeclared status or a wrong body does not compile.
- \`npm test\`: the conformance suite against the server; its findings name what is missing.
- \`npx paylater conform --base-url http://127.0.0.1:4010 --api-key sk_test_scaffold_a_000000000001 --other-api-key sk_test_scaffold_b_000000000002 --variant ${variant}\`:
  the same from the command line, against the running server.
`;
}

/** Runs the command; returns the exit code. */
export async function runInit(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { variant: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (e) {
    process.stderr.write(`paylater init: ${(e as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [what, dir, ...extra] = positionals;
  if (what !== 'server' || !dir || extra.length > 0) {
    process.stderr.write(`paylater init: expected \`init server DIR\`\n${USAGE}`);
    return 2;
  }
  if (values.variant !== '1' && values.variant !== '2') {
    process.stderr.write(`paylater init: --variant must be 1 or 2\n${USAGE}`);
    return 2;
  }
  const target = path.resolve(dir);
  if (existsSync(target) && readdirSync(target).length > 0 && !values.force) {
    process.stderr.write(`paylater init: ${target} is not empty (pass --force to write into it)\n`);
    return 2;
  }
  const root = packageRoot();
  if (!existsSync(path.join(root, 'dist', 'js', 'server', 'index.js'))) {
    process.stderr.write(`paylater init: ${root} is not built (no dist/js/): run npm run build there first\n`);
    return 2;
  }
  const own = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as PackageJson;
  let dependency = registryRange(root, own.version);
  if (dependency === null) {
    // Not from a registry: the project gets the package itself, packed into vendor/.
    await mkdir(path.join(target, 'vendor'), { recursive: true });
    try {
      dependency = `file:vendor/${packInto(root, path.join(target, 'vendor'))}`;
    } catch (e) {
      if (!(e instanceof InitError)) throw e;
      process.stderr.write(`paylater init: ${e.message}\n`);
      return 2;
    }
  }
  const files = scaffoldFiles(
    Number(values.variant) as 1 | 2,
    path
      .basename(target)
      .toLowerCase()
      .replace(/[^a-z0-9-]/g, '-') || 'paylater-server',
    dependency,
  );
  for (const [rel, text] of files) {
    await mkdir(path.dirname(path.join(target, rel)), { recursive: true });
    await writeFile(path.join(target, rel), text);
  }
  process.stdout.write(
    `Wrote a Variant ${values.variant} server in ${target} (${files.size} files).\nNext: cd ${dir} && npm install && npm start; npm test names the operations left to write.\n`,
  );
  return 0;
}
