/**
 * Jest config of the Python SDK's stack runner only (`scripts/test.sh` runs it
 * after the main suite): it boots the stack, then hands it to pytest.
 */
const { join } = require('node:path');
const root = join(__dirname, '..', '..', '..');
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs' },
  },
];
module.exports = {
  rootDir: root,
  testTimeout: 300000,
  testMatch: ['<rootDir>/sdks/python/tests/*.stack-spec.ts'],
  transform: { '^.+\\.(t|j)s$': swc },
  moduleNameMapper: {
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^@rota/([a-z-]+)$': '<rootDir>/packages/$1/src',
    '^@rota/([a-z-]+)/(.*)$': '<rootDir>/packages/$1/src/$2',
  },
  testEnvironment: 'node',
  // packages/cli/pack holds the bundled CLI with its own package.json (scripts/bundle.mjs).
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/', '<rootDir>/packages/cli/pack/'],
  transformIgnorePatterns: ['/node_modules/(?!(\\.pnpm/[^/]+/node_modules/)?(jose|@opentelemetry/otlp-exporter-base)/)'],
};
