export {
  startSandbox,
  type Sandbox,
  type SandboxControl,
  type SandboxOptions,
  type SandboxTlsOptions,
} from './sandbox';
export { DEFAULT_CONFIG, type AuthConfig, type ProviderConfig, type ProviderKind, type SandboxConfig } from './config';
export { FAULT_MODES, type ArmedFault, type FaultMode, type FaultRule } from './faults';
export type { CountersSnapshot } from './counters';
export { ASAAS_SANDBOX_CUSTOMER } from './providers/asaas';
