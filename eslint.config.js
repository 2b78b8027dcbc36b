// ESLint with type information (typescript-eslint), run by `npm run lint` with --max-warnings 0.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';

// ---------------------------------------------------------------------------------------------
// Layers that point one way (issue 29 point 1; docs/architecture.md draws the picture).
// eslint-plugin-import-x resolves each relative import (they all name the .ts file) and:
// - `import-x/no-cycle` refuses a runtime import cycle among the package's source folders;
// - `import-x/no-restricted-paths` refuses an import from a higher layer, type-only imports
//   included (a lower layer that names a higher layer's type depends on it all the same, and
//   that is how the config → http → handlers → config cycle closed);
// - `no-restricted-imports` keeps vitest out of production files.
// Tests (`*.test.ts`) and test support (`test-support/` folders, never shipped) may import any
// layer; production files never import test support.
// ---------------------------------------------------------------------------------------------
const RS = 'reference-server';
/** The reference server's layers, lowest first: each may import the ones before it, never after. */
const serverLayers = [
  { name: 'domain', files: [`${RS}/domain/**`] },
  { name: 'store / webhooks', files: [`${RS}/store/**`, `${RS}/webhooks/**`] },
  { name: 'core (config.ts, core.ts)', files: [`${RS}/@(config|core).ts`] },
  { name: 'http / handlers', files: [`${RS}/http/**`, `${RS}/handlers/**`] },
  {
    name: 'app / CLI',
    files: [`${RS}/!(config|core).ts`, `${RS}/checkout/**`, `${RS}/dashboard/**`],
  },
];
const TEST_SUPPORT = '**/test-support/**';
/** The source folders above model/ (lib/ lies below it). */
const aboveModel = [
  'judge/**',
  'reference-server/**',
  'conformance/**',
  'certify/**',
  'sdk/**',
  'server/**',
  'proxy/**',
  'recorded/**',
  'scripts/**',
];
const layerZones = [
  // lib/ is the bottom: it imports only generated/ (and packages).
  {
    target: 'lib/**',
    from: ['model/**', ...aboveModel],
    message: 'lib/ is the lowest layer (docs/architecture.md).',
  },
  {
    // model/ (the one model of the rules, issue 40) sits on lib/: it imports only generated/ and lib/; all others may import it.
    target: 'model/**',
    from: aboveModel,
    message: 'model/ imports only generated/ and lib/ (docs/architecture.md).',
  },
  ...serverLayers.slice(0, -1).map((layer, i) => ({
    target: layer.files,
    from: serverLayers.slice(i + 1).flatMap((higher) => higher.files),
    message: `reference-server layer "${layer.name}" must not import a higher layer (docs/architecture.md).`,
  })),
  {
    target: `${RS}/**`,
    from: ['scripts/**'],
    message: 'reference-server/ must not import scripts/ (the CLI and build tools sit above it).',
  },
  {
    // judge/ (the one judge) sits below the suite and the proxy: on model/, generated/, lib/,
    // server/ (the route table, the compiled validators) and the SDK's webhook verifier.
    target: 'judge/**',
    from: ['conformance/**', 'proxy/**', 'reference-server/**', 'scripts/**', 'certify/**'],
    message:
      'judge/ sits below conformance/ and proxy/: it imports only model/, generated/, lib/, server/ and sdk/webhooks/ (docs/architecture.md).',
  },
  {
    // recorded/ (recorded traffic read, judged and replayed: paylater judge FILE.har) sits on proxy/
    // (its HAR writer) and judge/ (the reports both ears share); only scripts/ (the CLI) imports it.
    target: ['judge/**', 'reference-server/**', 'conformance/**', 'certify/**', 'sdk/**', 'server/**', 'proxy/**'],
    from: ['recorded/**'],
    message: 'recorded/ sits above proxy/ and judge/: only scripts/ imports it (docs/architecture.md).',
  },
  {
    target: ['conformance/**', 'certify/**', 'sdk/**', 'server/**', 'proxy/**', 'recorded/**'],
    from: ['reference-server/**', 'scripts/**'],
    message:
      'conformance/, certify/, sdk/, server/, proxy/ and recorded/ must not import reference-server/ or scripts/ outside their tests.',
  },
  {
    target: ['conformance/**', 'sdk/**', 'server/**'],
    from: ['proxy/**'],
    message: 'proxy/ sits above conformance/, sdk/ and server/.',
  },
  {
    // the proxy forwards and reports, recorded/ reads and replays; what they judge is the judge's
    target: ['proxy/**', 'recorded/**'],
    from: ['conformance/**'],
    message: 'proxy/ and recorded/ judge through judge/, never through conformance/.',
  },
  {
    target: ['sdk/**', 'server/**'],
    from: ['conformance/**', 'judge/**'],
    message: 'sdk/ and server/ must not import conformance/ or judge/.',
  },
  {
    // The demo shop plays a merchant's backend: it calls the API through the public SDK client, as
    // a merchant would (reference-server/checkout/demo-shop.ts). No other server file uses sdk/.
    target: [...serverLayers.flatMap((layer) => layer.files).filter((f) => f !== `${RS}/checkout/**`), `${RS}/checkout/!(demo-shop).ts`],
    from: ['sdk/**'],
    message: "only the demo shop (a merchant's site) may use sdk/ in reference-server/.",
  },
  {
    target: `${RS}/checkout/demo-shop.ts`,
    from: ['sdk/**'],
    except: [`**/sdk/client/index.ts`],
    message: 'the demo shop uses the SDK through its public entry sdk/client/index.ts only.',
  },
  {
    // scripts/bench/ is a measuring harness like the tests (never built or shipped): it starts its
    // PostgreSQL clusters and instances with reference-server/test-support/.
    target: ['{lib,model,judge,reference-server,conformance,certify,sdk,server,proxy,recorded}/**', 'scripts/!(bench)/**', 'scripts/*.ts'],
    from: [TEST_SUPPORT],
    message: 'production code never imports test support.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'generated/', '.artifacts/', 'sdk/browser/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: { allowDefaultProject: ['eslint.config.js', 'scripts/paylater.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      // Off: most async functions without `await` here implement a Promise-returning interface
      // (store and outbox methods, SMS senders, DNS resolvers, operation handlers, mutant hooks) with an
      // in-memory body; `async` keeps a throw inside them a rejection, as callers expect. Forgotten
      // awaits are still caught by no-floating-promises, no-misused-promises and await-thenable.
      '@typescript-eslint/require-await': 'off',
      // A leading `_` marks a binding that is unused on purpose, as tsc's noUnusedParameters allows:
      // a parameter an interface or arity requires (express's 4-argument error handler), or a
      // property taken out of an object so that a rest copy omits it.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // The layer rules (see the top of this file). Production source only: tests and test support
    // may reach any layer to set a server up.
    files: ['{lib,model,judge,reference-server,conformance,certify,sdk,server,proxy,recorded,scripts}/**/*.ts'],
    ignores: ['**/*.test.ts', TEST_SUPPORT],
    plugins: { 'import-x': importX },
    settings: {
      // Every relative import names its .ts file, so the plain resolver finds it.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.js', '.json'] })],
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layerZones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'vitest', message: 'vitest belongs in *.test.ts files and test-support/ folders.' }] },
      ],
    },
  },
  {
    // A source file a reader can hold in mind: one concern a file, split where it grows past 450
    // lines (tests excepted: a test file reads as a list of cases; generated/ is not hand-written).
    files: ['**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: { 'max-lines': ['error', { max: 450, skipBlankLines: false, skipComments: false }] },
  },
  {
    // These URL checks refuse control characters by matching them on purpose.
    files: ['reference-server/domain/redirect.ts', 'reference-server/webhooks/url-policy.ts'],
    rules: { 'no-control-regex': 'off' },
  },
);
