// The shape of the session service, measured by scripts/session-structure.cjs (run it to see the report).
// The measuring script is plain CommonJS run by node; Jest loads it the same way.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { analyse } = require('../../../scripts/session-structure.cjs') as {
  analyse(): {
    executePath: string[];
    executePathCount: number;
    executeReadingCount: number;
    mutualPairs: Array<[string, string]>;
    cycles: string[][];
    kernelImports: Array<{ to: string; why: string[] }>;
  };
};

/**
 * Before the calls/ kernel and the executor table, an execute request went
 * through 31 files (36 with the type-only imports a reader follows); at most
 * half of that now.
 */
const EXECUTE_PATH_BEFORE = 31;
const EXECUTE_READING_BEFORE = 36;

describe('session service structure', () => {
  const r = analyse();

  it('an execute request passes through at most half as many files as before the executor table', () => {
    expect(r.executePathCount).toBeLessThanOrEqual(Math.floor(EXECUTE_PATH_BEFORE / 2));
    expect(r.executeReadingCount).toBeLessThanOrEqual(Math.floor(EXECUTE_READING_BEFORE / 2));
    // The pipeline reaches executors through the table the module builds, never by importing a feature.
    for (const feature of ['rails/', 'mocks/', 'policy/', 'provider-calls/', 'connections/', 'sessions/', 'meta/']) {
      expect(r.executePath.filter((f) => f.startsWith(feature))).toEqual([]);
    }
  });

  it('no two folders of the service import each other, directly or in a cycle', () => {
    expect(r.mutualPairs).toEqual([]);
    expect(r.cycles).toEqual([]);
  });

  it('the calls/ kernel imports no feature folder', () => {
    expect(r.kernelImports).toEqual([]);
  });
});
