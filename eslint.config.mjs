// Type-aware lint for every workspace. The rules that matter most here:
// no floating promises, exhaustive switches, and Prisma only in repositories.
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/generated/**', '**/node_modules/**', 'packages/sdk/src/schema.d.ts'] },
  ...tseslint.configs.recommended,
  {
    files: ['apps/*/src/**/*.ts', 'packages/*/src/**/*.ts', 'test/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // Services and controllers never talk to the database directly. Modules
    // and main wire repositories up, so they may name them. A package's
    // repository is only reachable through its own subpath; a service may
    // still name its type.
    files: ['apps/*/src/**/*.ts'],
    ignores: [
      'apps/*/src/**/*.spec.ts',
      'apps/*/src/**/*.int-spec.ts',
      'apps/*/src/**/*.repository.ts',
      'apps/*/src/**/repository.ts',
      'apps/*/src/**/*.module.ts',
      'apps/*/src/main.ts',
      'apps/gateway/src/health/**',
    ],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@prisma/client', message: 'Prisma belongs in repositories.' },
            { name: '@rota/db', importNames: ['Prisma'], message: 'SQL belongs in repositories.' },
            {
              name: '@rota/catalog/repository',
              allowTypeImports: true,
              message: 'The catalog SQL belongs in repositories: import it from a *.repository.ts file.',
            },
          ],
          patterns: [{ group: ['**/generated/prisma*'], message: 'Prisma belongs in repositories.' }],
        },
      ],
    },
  },
  {
    // CommonJS entry points (a child process the benchmarks fork) load with require().
    files: ['**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
