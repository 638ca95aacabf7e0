import type { Environment, DiscoverMatch, DiscoverMetaToolName } from '@rota/contracts';
import type { RankedTool } from './ranking';

/**
 * The prose parts of a discover answer: pitfalls and a plan per match, and
 * the next steps of the whole answer. Everything is derived from catalog and
 * connection data; nothing is invented about a provider.
 */

const AUTH_NOTES: Readonly<Record<string, (provider: string) => string>> = {
  certificate: (p) =>
    `Authenticates with a client certificate (mutual TLS) that ${p} issues during its own onboarding; it cannot be created from a dashboard.`,
  hmac: (p) =>
    `Every request is signed with an HMAC key pair issued by ${p}; both halves must be stored in the connection.`,
  jwt: (p) => `Authenticates with signed JWTs, which needs a private key registered with ${p}.`,
  two_header: (p) => `Needs two credentials sent as separate headers (for example a client id and a secret) from ${p}.`,
  oauth2: (p) => `Authorises through OAuth: the owner of the ${p} account has to grant access before calls work.`,
};

/** What a caller would say when asked for this kind of credential. */
const AUTH_LABEL: Readonly<Record<string, string>> = {
  certificate: 'client certificate',
  hmac: 'HMAC key pair',
  jwt: 'JWT signing key',
  two_header: 'two-header credentials',
  oauth2: 'OAuth grant',
  api_key: 'API key',
  basic: 'user and password',
};

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function callableName(serverId: string, toolName: string): string {
  return `${serverId}/${toolName}`;
}

export interface AdviceContext {
  environment: Environment;
  /** The country the caller filtered on, if any. */
  country: string | null;
}

/** Things likely to go wrong when calling this tool, most blocking first. */
export function knownPitfalls(r: RankedTool, ctx: AdviceContext): string[] {
  const c = r.candidate;
  const out: string[] = [];
  if (r.blocked) {
    out.push(
      `Unreachable in the test environment until it is connected, and its ${AUTH_LABEL[c.authType] ?? c.authType} credentials cannot be created self-serve.`,
    );
  } else if (r.connectionStatus === 'disconnected') {
    out.push(`This project has no ${ctx.environment} connection to ${c.providerName}; calls fail until one is added.`);
  }
  const auth = AUTH_NOTES[c.authType];
  if (auth && r.connectionStatus === 'disconnected') out.push(auth(c.providerName));
  if (ctx.environment === 'test' && !c.sandboxAvailable && r.connectionStatus !== 'not_required') {
    out.push(`${c.providerName} offers no sandbox, so test-environment calls have no safe place to land.`);
  }
  if (c.providerStatus !== 'stable') out.push(`${c.providerName} is marked "${c.providerStatus}" in the catalog.`);
  const method = c.httpMethod?.toUpperCase();
  if (method && WRITES.has(method)) {
    out.push(
      `Changes state at ${c.providerName} (${method}); check the outcome before repeating a call, since a blind retry can act twice.`,
    );
  }
  if (!c.httpMethod && !c.endpointTemplate) out.push('The catalog records no HTTP endpoint for this tool.');
  if (!ctx.country && c.providerCountry !== '*') {
    const countries = [...new Set([c.providerCountry, ...c.providerCountries])].filter((x) => x && x !== '*');
    if (countries.length > 0) out.push(`Serves ${countries.join(', ')} only.`);
  }
  return out;
}

/** Ordered steps from here to a successful call of this tool. */
export function recommendedPlan(r: RankedTool, ctx: AdviceContext): string[] {
  const c = r.candidate;
  const steps: string[] = [];
  if (r.connectionStatus === 'disconnected') {
    if (AUTH_NOTES[c.authType] && c.authType !== 'oauth2') {
      steps.push(`Obtain the ${AUTH_LABEL[c.authType]} from ${c.providerName}.`);
    }
    steps.push(
      `Connect ${c.providerName} in the ${ctx.environment} environment: POST /v1/connections with server_id "${c.serverId}" and its credentials (or \`pnpm rota connections add ${c.serverId}${ctx.environment === 'test' ? ' --environment test' : ''}\`), then check it with codespar_manage_connections action "status".`,
    );
  }
  steps.push(`Open a session whose servers include "${c.serverId}".`);
  steps.push(
    `Call "${callableName(c.serverId, c.toolName)}" with POST /v1/sessions/{id}/execute; raw catalog tools are not callable over MCP, only through execute.`,
  );
  return steps;
}

export function toMatch(r: RankedTool, ctx: AdviceContext): DiscoverMatch {
  const c = r.candidate;
  return {
    server_id: c.serverId,
    tool_name: c.toolName,
    tool: callableName(c.serverId, c.toolName),
    description: c.description,
    http_method: c.httpMethod,
    endpoint_template: c.endpointTemplate,
    cosine_distance: r.cosineDistance === null ? null : round(r.cosineDistance),
    trigram_similarity: r.trigramSimilarity === null ? null : round(r.trigramSimilarity),
    connection_status: r.connectionStatus,
    known_pitfalls: knownPitfalls(r, ctx),
    recommended_plan: recommendedPlan(r, ctx),
  };
}

function round(n: number): number {
  return Math.round(n * 1e6) / 1e6;
}

export interface NextStepsInput {
  useCase: string;
  environment: Environment;
  metaTools: { tool: DiscoverMetaToolName; gist: string }[];
  recommended: RankedTool | null;
  related: RankedTool[];
  blockedInTest: boolean;
  filtered: boolean;
}

/** What to do with this answer, most useful first. */
export function nextSteps(i: NextStepsInput): string[] {
  const steps: string[] = [];
  const [native, ...moreNative] = i.metaTools;
  if (native) {
    steps.push(`Call ${native.tool} directly: it covers ${native.gist}, so no raw provider tool is needed.`);
    if (moreNative.length) steps.push(`Also relevant: ${moreNative.map((m) => `${m.tool} (${m.gist})`).join('; ')}.`);
    if (i.related.length)
      steps.push(
        'The catalog tools under related are raw provider rails; pick one only when a specific provider is required.',
      );
    return steps;
  }
  const top = i.recommended;
  if (top) {
    const name = callableName(top.candidate.serverId, top.candidate.toolName);
    if (top.connectionStatus === 'disconnected') {
      steps.push(
        `Connect ${top.candidate.providerName} first (POST /v1/connections with server_id "${top.candidate.serverId}"; codespar_manage_connections action "status" tells whether it is done), then call ${name} through POST /v1/sessions/{id}/execute.`,
      );
      const reachable = i.related.find((r) => r.connectionStatus !== 'disconnected');
      if (reachable) {
        steps.push(
          `${callableName(reachable.candidate.serverId, reachable.candidate.toolName)} is the best match already reachable without a new connection.`,
        );
      }
    } else {
      steps.push(
        `Call ${name} through POST /v1/sessions/{id}/execute from a session that includes "${top.candidate.serverId}".`,
      );
    }
    if (i.related.length)
      steps.push(
        `If it does not fit, ${callableName(i.related[0]!.candidate.serverId, i.related[0]!.candidate.toolName)} is the next best match.`,
      );
    return steps;
  }
  if (i.blockedInTest) {
    steps.push(
      'Every match needs credentials that cannot be created self-serve, and none is connected in the test environment: connect one of the related providers in test, or ask again with a live key.',
    );
    return steps;
  }
  steps.push(
    `Nothing in the catalog matched "${i.useCase}". Describe the action and what it acts on (for example "issue a service invoice") rather than a product name.`,
  );
  if (i.filtered) steps.push('Try again without the category or country filter.');
  steps.push('For an overview of what this workspace can do, call codespar_get_started.');
  return steps;
}
