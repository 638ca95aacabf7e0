/** One Jest run covers every workspace, in three projects: unit specs, integration specs and end-to-end specs. */
const { common } = require('./jest.common.js');

module.exports = {
  // Per-project testTimeout is not honoured; e2e hooks boot a whole stack.
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,packages}/*/src/**/*.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/{apps,packages}/*/src/**/*.int-spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
