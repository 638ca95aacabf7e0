/** What every Jest config of the repository shares: the TypeScript transform, module mapping and ignore lists. */
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
const common = {
  transform: { '^.+\\.(t|j)s$': swc },
  moduleNameMapper: {
    // ES module sources name their siblings `./x.js` (the SDK's ESM build needs it); Jest loads `./x.ts`.
    '^(\\.{1,2}/.*)\\.js$': '$1',
    '^@rota/([a-z-]+)$': '<rootDir>/packages/$1/src',
    '^@rota/([a-z-]+)/(.*)$': '<rootDir>/packages/$1/src/$2',
  },
  testEnvironment: 'node',
  // packages/cli/pack holds the bundled CLI with its own package.json (scripts/bundle.mjs).
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/', '<rootDir>/packages/cli/pack/'],
  // jose ships only ES modules; Jest loads CommonJS, so it is compiled like our sources. The OTLP
  // exporter loads `http` with a dynamic import(), which Jest's VM refuses; compiled, it is a require().
  // content-disposition (under the queue board's @fastify/static) ships only ES modules too.
  transformIgnorePatterns: [
    '/node_modules/(?!(\\.pnpm/[^/]+/node_modules/)?(jose|@opentelemetry/otlp-exporter-base|content-disposition)/)',
  ],
};
module.exports = { common };
