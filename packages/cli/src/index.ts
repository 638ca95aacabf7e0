export { run, parseScopes, formatTable, CliError, type CliIo } from './main';
