import { z } from 'zod';
import { DiscoverResult } from './discover';
import { ExecuteResult } from './execute';
import type { MetaToolName } from './meta-tools';

/**
 * What the MCP transports add to the published meta-tools: behaviour hints
 * for clients that ask before running a tool, the shape of discover's result,
 * and the instructions `initialize` hands to the model.
 */

/** MCP tool annotations. Hints only: clients decide what to do with them, the server enforces nothing by them. */
export interface McpToolAnnotations {
  title: string;
  /** Reads only; changes nothing anywhere. */
  readOnlyHint: boolean;
  /** May delete, cancel or move money: an update that cannot be taken back by calling again. */
  destructiveHint: boolean;
  /** Calling again with the same arguments has no further effect (an idempotency key aside). */
  idempotentHint: boolean;
  /** Reaches outside Rota (a provider's API). */
  openWorldHint: boolean;
}

const reads = (title: string, openWorld = false): McpToolAnnotations => ({
  title,
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: openWorld,
});
const acts = (title: string, destructive: boolean, idempotent = false): McpToolAnnotations => ({
  title,
  readOnlyHint: false,
  destructiveHint: destructive,
  idempotentHint: idempotent,
  openWorldHint: true,
});

/**
 * One entry per published meta-tool (a missing name is a type error). A tool
 * that moves money, cancels or deletes anything is destructive; none of the
 * acting tools is idempotent by its arguments alone, which is why calls carry
 * `_meta.idempotency_key`.
 */
export const META_TOOL_ANNOTATIONS: Readonly<Record<MetaToolName, McpToolAnnotations>> = {
  codespar_discover: reads('Find the tool for a use case'),
  codespar_get_started: reads('What to do first in this project'),
  // Connecting twice or disconnecting twice ends in the same state.
  codespar_manage_connections: acts('List, add or remove provider connections', true, true),
  codespar_checkout: acts('Create a checkout link', false),
  codespar_pay: acts('Pay out money', true),
  // Reads balances, but also creates and tops up wallets.
  codespar_wallet: acts('Wallets and balances', true),
  codespar_shop: acts('Buy from a merchant', true),
  codespar_charge: acts('Charge a customer', true),
  // An issued fiscal document cannot be unissued by calling again.
  codespar_invoice: acts('Issue or cancel an invoice', true),
  codespar_ship: acts('Quote, book or cancel a shipment', true),
  codespar_notify: acts('Send a message', false),
  codespar_crypto_pay: acts('Pay or collect in crypto', true),
  codespar_kyc: acts('Verify a person or company', false),
  codespar_ledger: acts('Record or read ledger entries', false),
  codespar_issue: acts('Issue and control payment cards', true),
};

/**
 * The JSON Schema of `codespar_discover`'s structured content over MCP, as
 * draft 7 like the published input schemas. Clients validate every
 * structured content against it, failures included, so it names the three
 * shapes a call can answer: the execute result with the discover result as
 * `data`, a failed execute result, and a refusal (`{code, message}`, or a
 * policy's `{reason, ruleType, ruleId}`).
 */
export function discoverOutputSchema(): { type: 'object'; [key: string]: unknown } {
  const schema = z.union([
    ExecuteResult.extend({ success: z.literal(true), data: DiscoverResult }),
    ExecuteResult.extend({ success: z.literal(false) }),
    z.object({ code: z.string(), message: z.string() }).catchall(z.unknown()),
    z.object({ reason: z.string() }).catchall(z.unknown()),
  ]);
  const { $schema: _dialect, ...generated } = z.toJSONSchema(schema, { io: 'output', target: 'draft-7' }) as Record<
    string,
    unknown
  >;
  return { type: 'object', ...generated };
}

/** Handed to the model by `initialize`: how to use this server well. */
export const MCP_INSTRUCTIONS = [
  'Rota routes commerce operations (charges, payouts, invoices, shipping, messages) to the right provider for the country, currency and method.',
  'Start with codespar_get_started when unsure what the project can do, and codespar_discover to find the tool for a use case; prefer the meta-tools it names in meta_tools.',
  'codespar_manage_connections lists and checks provider connections; codespar_list_tools lists what is callable here.',
  'The meta-tools that move money or send things (charge, pay, checkout, wallet, shop, invoice, ship, notify, crypto_pay, kyc, ledger, issue) run on the best connected provider for the call; connection_required names what to connect, and outcome_unknown means the call may have run: never repeat it with a new idempotency key.',
  'A refusal is a tool result with isError true and a code in its content: read it, do not retry an identical call. Send params._meta.idempotency_key on calls that act, and reuse it when you retry one.',
].join(' ');
