/** @rota/testing: helpers shared by the test suites of every app. */
export * from './fake-anthropic';
export * from './fake-openai';
export * from './sse';
