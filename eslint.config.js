// @ts-check
/**
 * The one ESLint config for the monorepo (flat config, ESLint 10 + typescript-eslint 8).
 *
 * House conventions live here as rules rather than review comments:
 * - pino, never `console`                                 -> no-console
 * - a package's contract is its `src/index.ts`             -> no-restricted-imports (no deep imports)
 * - tests use real implementations; `vi` only for the clock -> no-restricted-properties on vi.mock & co
 * - no `any`, type-only imports marked, promises handled, unions switched exhaustively.
 *
 * Type-aware rules run on TypeScript files through the project service, which resolves each file against
 * the tsconfig.json nearest to it (the per-package ones for sources, the root tsconfig.json for tests and
 * root config files).
 */
import eslint from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Module-mocking and global-stubbing parts of vitest's `vi`. Fake timers (`vi.useFakeTimers`,
 * `vi.setSystemTime`, `vi.advanceTimersByTime*`...) and plain spies (`vi.fn`) stay allowed. */
const FORBIDDEN_VI = [
  'mock',
  'doMock',
  'unmock',
  'doUnmock',
  'hoisted',
  'importMock',
  'importActual',
  'mocked',
  'stubGlobal',
];
const VI_MESSAGE =
  'Tests use real implementations over in-memory transports or loopback HTTP, simulators for external systems and scripted fakes for the LLM; `vi` is for the clock only (fake timers).';

export default defineConfig(
  {
    name: 'flotilla/ignores',
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      '**/coverage/**',
      '**/bench-results/**',
      '**/.flotilla/**',
      // Generated output (dashboards, rules, schemas): checked by a staleness test, not by lint.
      '**/generated/**',
      '**/*.generated.*',
    ],
  },
  {
    name: 'flotilla/linter-options',
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  eslint.configs.recommended,
  {
    name: 'flotilla/typescript',
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    name: 'flotilla/javascript',
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.recommended],
  },
  {
    name: 'flotilla/conventions',
    rules: {
      'no-console': 'error',
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@flotilla/*/src', '@flotilla/*/src/**', '@flotilla/*/dist', '@flotilla/*/dist/**'],
              message: "Import another workspace package by its name only (its src/index.ts is its contract).",
            },
            {
              // A relative path into another package: from test/ or the root (../packages/x/...), or from
              // inside a package up into a sibling's src/ or dist/ (../../y/src/...).
              regex: '^(?:\\./|(?:\\.\\./)+)(?:(?:packages|agents)/|[^./][^/]*/(?:src|dist)(?:/|$))',
              message: "Import another workspace package by its name (@flotilla/...), never by a relative path into it.",
            },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          args: 'after-used',
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrorsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': [
        'error',
        { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: true },
      ],
    },
  },
  {
    name: 'flotilla/typescript-type-aware',
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-exports': ['error', { fixMixedExportsWithInlineTypeSpecifier: true }],
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: false, requireDefaultForNonUnion: false },
      ],
    },
  },
  {
    name: 'flotilla/tests',
    files: ['**/*.test.ts', '**/*.test-util.ts', 'test/**/*.ts'],
    rules: {
      'no-restricted-properties': [
        'error',
        ...FORBIDDEN_VI.map((property) => ({ object: 'vi', property, message: VI_MESSAGE })),
      ],
    },
  },
);
