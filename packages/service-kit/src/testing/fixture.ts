/** Key under which the fixture replica's `fixture.act` counts the runs of one request. */
export const fixtureRunsKey = (prefix: string, key: string) => `${prefix}:fixture-runs:${key}`;
