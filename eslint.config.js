// Lint rules the type checker cannot enforce: promises that nobody awaits lose their errors and their
// ordering, so every promise is awaited, returned, or marked `void` as intentional fire-and-forget.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['node_modules/', '.gymflow/', 'runs/', 'dist/', 'coverage/'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        // Files outside tsconfig's include are checked with its compiler options.
        projectService: { allowDefaultProject: ['vitest.config.ts', 'scripts/capture-histories.ts', 'scripts/write-api-schemas.ts'], defaultProject: 'tsconfig.json' },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
);
