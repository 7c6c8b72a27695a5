import js from '@eslint/js'
import tseslint from 'typescript-eslint'

// DESIGN §1: layers point one way. Each folder may import only the layers
// below it, and those only through their index.ts.
const layer = (files, allowed, message) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: allowed === null ? '^\\.\\./' : `^(\\.\\./)+(?!\\.\\./)(?!(${allowed})$)`,
            message,
          },
        ],
      },
    ],
  },
})
const lower = (...names) => names.map((name) => `${name}/index\\.js`).join('|')

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'coverage/**',
      'reports/**',
      '.stryker-tmp/**',
      'node_modules/**',
      'scratch/**',
      '.bench-build/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly' },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration',
          message: 'Public API is explicit: list named exports instead of export *.',
        },
      ],
    },
  },
  layer(['src/vocabulary/**'], null, 'src/vocabulary imports nothing of askseam.'),
  layer(
    ['src/machines/**'],
    lower('vocabulary'),
    'A machine imports only the vocabulary, through its index.',
  ),
  layer(
    ['src/protocol/**'],
    lower('vocabulary', 'machines'),
    'protocol imports machines and vocabulary only, through their index.',
  ),
  layer(
    [
      'src/providers/**',
      'src/stores/**',
      'src/adapters/**',
      'src/tool/**',
      'src/otel/**',
      'src/notify/**',
    ],
    `${lower('vocabulary', 'machines', 'protocol')}|protocol/internal\\.js|tool/index\\.js`,
    'A provider, store, adapter or the tool imports protocol, machines and vocabulary (and an adapter the tool) through their index, never another provider, store or adapter.',
  ),
  layer(
    ['src/cli/**'],
    // Besides entry points, the terminal's style file: it needs no peer, and the
    // web demo must not load the terminal's `marked` for its colours.
    `${lower('vocabulary', 'machines', 'protocol', 'tool')}|protocol/internal\\.js|(providers|stores|adapters)/[a-z-]+/index\\.js|notify/index\\.js|providers/terminal/style\\.js`,
    'The CLI imports each layer through its entry point (and the peer-free terminal style).',
  ),
)
