// ESLint with type information (typescript-eslint), run by `npm run lint` with --max-warnings 0.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'generated/', '.artifacts/', 'sdk/browser/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js', 'scripts/paylater.mjs'] }, tsconfigRootDir: import.meta.dirname },
    },
  },
);
