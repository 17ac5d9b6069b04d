/**
 * ESLint's flat config (`npm run lint`, run by `npm test`): typescript-eslint's recommended rules,
 * type-aware where it pays (the promise rules: a promise nobody awaits or catches is a lost error),
 * and React's two rules of hooks. docs/development.md ("Lint, format, dead code") says why each
 * choice and how to add an exception: a disable comment names the rule and gives its reason
 * (`-- why`), and an unused one is an error.
 */
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/**/fixtures/**', 'bench/fixtures/**', '**/*.generated.*'] },
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // keydeck's sanitisers match control characters on purpose (src/terminal/, the API's readers).
      'no-control-regex': 'off',
      // `let x; const close = () => x?.stop(); x = start(close)`: a closure that reads a variable set after it.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['**/*.{ts,tsx}'],
    languageOptions: {
      // The one program of tsconfig.json (whose `include` holds every TypeScript file here), not the
      // project service (an editor's machinery): the same findings, for ~20 % less CPU on a lint
      // without its cache, 46 → 37 s (docs/development.md, "Lint, format, dead code").
      parserOptions: { project: './tsconfig.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      // The suites' helpers named `use…` (useScriptedSandbox, useHostileServers, useRig) register
      // vitest hooks, not React's: the rules of hooks hold in the suites' components (.tsx) only.
      'react-hooks/rules-of-hooks': 'off',
    },
  },
  {
    files: ['test/**/*.{ts,tsx}'],
    rules: {
      // A suite reads the JSON a server sent and asserts its shape; `any` there is what `expect` checks.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
);
