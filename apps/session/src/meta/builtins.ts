import {
  LIST_TOOLS_TOOL,
  META_TOOLS,
  type Environment,
  type GetStartedData,
  type GetStartedStep,
  type ListToolsData,
  type ListedTool,
} from '@rota/contracts';
import type { ProviderState } from '../connections/provider-state';

/**
 * The tools that answer from Rota's own data: `codespar_list_tools`,
 * `codespar_get_started` and `codespar_manage_connections` (`list`, `status`).
 * Pure functions over rows the execute service has already read.
 */

export type { ProviderState };

export const LIST_TOOLS_DESCRIPTION =
  'Lists the tools callable here: the published meta-tools and, over the execute route, the catalog tools of the providers this session names.';

/** `codespar_list_tools`: meta-tools first (published order), then catalog tools by provider and name. */
export function listTools(
  catalog: Array<{ serverId: string; toolName: string; description: string }>,
  servers: ProviderState[],
): ListToolsData {
  const tools: ListedTool[] = [
    ...META_TOOLS.map((t) => ({ name: t.name, description: t.description, meta_tool: true, server_id: null })),
    { name: LIST_TOOLS_TOOL, description: LIST_TOOLS_DESCRIPTION, meta_tool: true, server_id: null },
    ...catalog.map((t) => ({
      name: `${t.serverId}/${t.toolName}`,
      description: t.description,
      meta_tool: false,
      server_id: t.serverId,
    })),
  ];
  return { tools, servers: servers.map((s) => ({ server_id: s.id, connection_status: s.status })) };
}

/** Which meta-tools serve a provider category, most useful first. */
const CATEGORY_TOOLS: Record<string, string[]> = {
  payments: ['codespar_charge', 'codespar_checkout', 'codespar_pay'],
  banking: ['codespar_wallet', 'codespar_pay'],
  fiscal: ['codespar_invoice'],
  logistics: ['codespar_ship'],
  communication: ['codespar_notify'],
  identity: ['codespar_kyc'],
  fraud: ['codespar_kyc'],
  crypto: ['codespar_crypto_pay'],
  ecommerce: ['codespar_shop'],
  ledger: ['codespar_ledger'],
  card_issuing: ['codespar_issue'],
};

/**
 * `codespar_get_started`: the ordered happy path for this project, with each
 * step marked done or not from what is actually connected.
 */
export function getStarted(input: {
  environment: Environment;
  providers: ProviderState[];
  inSession: boolean;
}): GetStartedData {
  const connected = input.providers.filter((p) => p.status === 'connected');
  // Connected providers first: they are what the project chose to set up.
  const usable = [...connected, ...input.providers.filter((p) => p.status === 'not_required')];
  const suggested: GetStartedData['suggested_tools'] = [];
  for (const p of usable) {
    for (const tool of CATEGORY_TOOLS[p.category] ?? []) {
      if (!suggested.some((s) => s.tool === tool))
        suggested.push({
          tool,
          because: `${p.name} (${p.category}) is ${p.status === 'connected' ? 'connected' : 'usable without credentials'}`,
        });
    }
  }
  const steps: Array<Omit<GetStartedStep, 'step'>> = [
    {
      id: 'api_key',
      title: 'Create an API key',
      done: true,
      tool: null,
      detail: `You are calling with a ${input.environment} key.`,
    },
    {
      id: 'connect_provider',
      title: 'Connect a provider',
      done: connected.length > 0,
      tool: 'codespar_manage_connections',
      detail: connected.length
        ? `Connected in ${input.environment}: ${connected.map((p) => p.id).join(', ')}.`
        : `Nothing is connected in ${input.environment} yet. Store a provider's credentials with POST /v1/connections or \`pnpm rota connections add <server>\`.`,
    },
    {
      id: 'open_session',
      title: 'Open a session over the providers you need',
      done: input.inSession,
      tool: null,
      detail: input.inSession
        ? 'This call runs inside a session.'
        : 'POST /v1/sessions with the provider ids; the answer carries the session MCP URL.',
    },
    {
      id: 'discover',
      title: 'Find the tool for the job',
      done: false,
      tool: 'codespar_discover',
      detail: 'Describe the job in plain words; prefer a native meta-tool when one comes back in meta_tools.',
    },
    {
      id: 'first_call',
      title: 'Make a first call',
      done: false,
      tool: suggested[0]?.tool ?? LIST_TOOLS_TOOL,
      detail: suggested.length
        ? `Start with ${suggested[0]!.tool}: ${suggested[0]!.because}.`
        : 'List what is callable with codespar_list_tools.',
    },
  ];
  if (input.environment === 'test') {
    steps.push({
      id: 'go_live',
      title: 'Go live',
      done: false,
      tool: null,
      detail: 'Create a live key and connect the same providers with live credentials.',
    });
  }
  return {
    environment: input.environment,
    connected: connected.map((p) => p.id),
    steps: steps.map((s, i) => ({ step: i + 1, ...s })),
    suggested_tools: suggested,
  };
}
