// ESLint with type information (typescript-eslint), run by `npm run lint` with --max-warnings 0.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // These URL checks refuse control characters by matching them on purpose.
    files: ['reference-server/domain/redirect.ts', 'reference-server/webhooks/url-policy.ts'],
    rules: { 'no-control-regex': 'off' },
  },
);
