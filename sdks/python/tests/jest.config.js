/**
 * Jest config of the Python SDK's stack runner only (`scripts/test.sh` runs it
 * after the main suite): it boots the stack, then hands it to pytest. It
 * shares the main config's transform, module mapping and ignore lists.
 */
const { join } = require('node:path');
const { common } = require('../../../jest.common.js');

module.exports = {
  ...common,
  rootDir: join(__dirname, '..', '..', '..'),
  testTimeout: 300000,
  testMatch: ['<rootDir>/sdks/python/tests/*.stack-spec.ts'],
};
