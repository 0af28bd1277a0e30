// Lint: ESLint's and typescript-eslint's recommended rules over the TypeScript sources.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'data/', 'console/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
      'no-console': 'error',
    },
  },
  {
    // SQL lives in store files (store.ts of each area, infra/store/, and the recording writers, which
    // are the recorder's store in its worker threads): services hold the rules, routes the wire.
    files: ['src/**/*.ts'],
    ignores: ['**/store.ts', 'src/infra/store/**', 'src/engine/recording/*-writer.ts', '**/*.test.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto|selectNoFrom)$/]",
          message: 'SQL belongs in store.ts: move the query to the area\'s store and call it from here.',
        },
        { selector: "TaggedTemplateExpression[tag.name='sql']", message: 'SQL belongs in store.ts: move the query to the area\'s store and call it from here.' },
        { selector: "CallExpression[callee.object.name='sql']", message: 'SQL belongs in store.ts: move the query to the area\'s store and call it from here.' },
      ],
    },
  },
  {
    files: ['src/infra/store/migrations/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The console runs in the browser: React's rules of hooks apply.
    files: ['console/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
      // The console is a client of the API: of the gateway's code it may read the API's types only.
      'no-restricted-imports': ['error', { patterns: [{ group: ['**/src/engine/**', '**/src/areas/**', '**/src/infra/**', '**/src/cli/**', '**/src/*.js', '**/src/*.ts'], message: 'the console talks to the gateway over HTTP: import only src/api (its types)' }] }],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['**/*.test.ts', 'test/**', 'bench/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', 'no-console': 'off' },
  },
);
