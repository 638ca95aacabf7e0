export { run, parseScopes } from './main';
export { formatTable, CliError, type CliIo } from './io';
