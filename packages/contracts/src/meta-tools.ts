import type { z } from 'zod';
import { META_TOOL_INPUTS, DiscoverInput } from './meta-tools/inputs';
import { publishedInputSchema, type MetaToolInputSchema } from './meta-tools/json-schema';

export type { JsonSchema, MetaToolInputSchema } from './meta-tools/json-schema';

/**
 * The 15 published meta-tools: the single source of truth for their names,
 * descriptions and inputs.
 *
 * `GET /meta-tools.json`, MCP `tools/list` and the path A classifier prompt
 * all read from here, so a wording change lands everywhere at once. Each
 * input is one zod object (`./meta-tools/inputs`); the JSON Schema served to
 * clients is generated from it once, at load, and execute validates
 * arguments with the zod object itself.
 */

/** Published order. Clients and the catalog document keep this order. */
export const META_TOOL_NAMES = [
  'codespar_discover',
  'codespar_get_started',
  'codespar_manage_connections',
  'codespar_checkout',
  'codespar_pay',
  'codespar_wallet',
  'codespar_shop',
  'codespar_charge',
  'codespar_invoice',
  'codespar_ship',
  'codespar_notify',
  'codespar_crypto_pay',
  'codespar_kyc',
  'codespar_ledger',
  'codespar_issue',
] as const;

/** One of the 15 published meta-tool names. */
export type MetaToolName = (typeof META_TOOL_NAMES)[number];

/**
 * Which way a meta-tool moves money for the workspace: `in` collects, `out`
 * spends, `both` can do either, `in_read` collects or only reads balances,
 * `none` moves no money.
 */
export type MoneyDirection = 'in' | 'out' | 'both' | 'none' | 'in_read';

/** One published meta-tool. */
export interface MetaToolDefinition {
  name: MetaToolName;
  /** What it does, when to use it, and which sibling to use instead. */
  description: string;
  /** The input as zod: the source `inputSchema` is generated from. */
  input: z.ZodObject;
  /**
   * What execute validates arguments with: `input` itself, except that
   * `codespar_discover` also takes `query` as the alias of `use_case`.
   */
  accepts: z.ZodType;
  /** The input as published JSON Schema, generated from `input`. */
  inputSchema: MetaToolInputSchema;
  /** Money direction, used by routing and by the catalog; not served in `tools/list`. */
  money: MoneyDirection;
}

const DEFINITIONS: ReadonlyArray<Pick<MetaToolDefinition, 'name' | 'description' | 'money'>> = [
  {
    name: 'codespar_discover',
    description:
      'Searches the full catalog of provider tools (the individual rails behind every other meta-tool) for a use case described in plain words, and ranks them. ' +
      'Use it when the job is not covered by one of the other meta-tools, when you need a specific provider capability such as an exchange-rate lookup, a postal-code lookup or a marketplace integration, or when you do not know what a tool is called. ' +
      'If the request is plainly a payment, charge, invoice, shipment, message, card, identity check or ledger entry, call that meta-tool directly instead (for example codespar_pay, codespar_charge or codespar_invoice).',
    money: 'none',
  },
  {
    name: 'codespar_get_started',
    description:
      'Returns the ordered first steps for this workspace: what to configure, which providers to connect and which tools to try first. ' +
      'Use it when someone is new, asks how to begin, wants an overview of what the platform can do, or asks about setting up a sandbox or API key. ' +
      'To actually connect or check a provider account, use codespar_manage_connections; to look for a specific capability, use codespar_discover.',
    money: 'none',
  },
  {
    name: 'codespar_manage_connections',
    description:
      'Lists, checks, starts and completes connections between the workspace and provider accounts (payment processors, stores, ERPs), and reads or saves a shopper profile (document number, e-mail, delivery address) for later purchases. ' +
      'Use it to link or authorise an account, to ask whether a provider is already connected, to finish an authorisation flow, or to store and read saved customer details. ' +
      'It does not verify identity documents (use codespar_kyc) and does not send messages (use codespar_notify).',
    money: 'none',
  },
  {
    name: 'codespar_checkout',
    description:
      'Creates a hosted checkout: a payment page or payment link for a set of cart items, where the customer chooses Pix, boleto or card and pays. ' +
      'Use it when you have items or a cart and want one link or page the buyer can pay through. ' +
      'To collect a single amount with no cart (a Pix charge, a boleto with a due date, a card charge), use codespar_charge; to buy something yourself from a store, use codespar_shop.',
    money: 'in',
  },
  {
    name: 'codespar_pay',
    description:
      'Sends money out of the workspace: pays a Pix key or a Pix copy-and-paste code, pays a boleto by its digitable line, or makes a bank transfer (TED, SPEI and similar), and reports the status of a payment already sent. ' +
      'Use it when the workspace is the payer, for example paying a supplier, a bill or a person. ' +
      'To receive money from a customer use codespar_charge or codespar_checkout; for stablecoins or other crypto use codespar_crypto_pay.',
    money: 'out',
  },
  {
    name: 'codespar_wallet',
    description:
      "Works with the workspace's own stored-value wallet: reads its balance, lists its statement of recent movements, or creates a Pix request to top it up. " +
      'Use it for questions such as how much is in the wallet, what moved in it this month, or to add funds to it. ' +
      'Accounting balances and journal entries belong to codespar_ledger; crypto wallets and addresses belong to codespar_crypto_pay.',
    money: 'in_read',
  },
  {
    name: 'codespar_shop',
    description:
      'Shops on behalf of the user: searches merchants for products, buys the chosen item and reports whether a purchase was confirmed. ' +
      'Use it when the user wants to find, compare or buy goods (for example the cheapest model of something under a price). ' +
      'To sell your own items to a customer, use codespar_checkout; to look for an integration or tool rather than a product, use codespar_discover.',
    money: 'out',
  },
  {
    name: 'codespar_charge',
    description:
      'Collects a single amount from a customer: creates a Pix charge or QR code, a boleto with a due date, a card charge, or a wallet charge. ' +
      'Use it when the workspace is being paid and there is an amount and a payer but no cart, including recurring or instalment card charges. ' +
      'For a payment page covering several cart items use codespar_checkout; to pay someone else use codespar_pay; to be paid in crypto use codespar_crypto_pay. ' +
      'Rota extensions: action refund with a charge_id sends a charge back to the payer, and method also takes spei, oxxo and pse.',
    money: 'in',
  },
  {
    name: 'codespar_invoice',
    description:
      'Issues fiscal documents and follows them up: Brazilian NF-e for goods and NFS-e for services, or a generic electronic invoice (such as a CFDI); checks their status; and amends or cancels them with a correction or a reason. ' +
      'Use it for anything about a nota fiscal, factura or tax invoice, including fetching its XML or PDF. ' +
      'A plain payment receipt belongs to codespar_ledger, and asking a customer for money belongs to codespar_charge.',
    money: 'none',
  },
  {
    name: 'codespar_ship',
    description:
      'Handles parcels: quotes shipping prices across carriers, buys and prints a shipping label, and tracks a package by its tracking code. ' +
      'Use it for freight quotes, labels or waybills, and questions about where a package is or whether it was delivered. ' +
      'To tell the customer about a shipment, use codespar_notify; to save a delivery address on a shopper profile, use codespar_manage_connections.',
    money: 'none',
  },
  {
    name: 'codespar_notify',
    description:
      'Sends a message to a person over WhatsApp, e-mail or SMS, either free text or a template with variables. ' +
      'Use it to tell a customer, supplier or teammate something: order updates, reminders, confirmations, welcome notes. ' +
      'It only delivers messages: the charge, invoice or shipment a message talks about is created with codespar_charge, codespar_invoice or codespar_ship.',
    money: 'none',
  },
  {
    name: 'codespar_crypto_pay',
    description:
      'Sends or receives crypto, mostly stablecoins: USDC, USDT, BTC, ETH or MATIC on Ethereum, Polygon, Base, Solana or Bitcoin, including converting between local currency and crypto. ' +
      'Use it whenever the payment or receipt is in a coin or token, or involves a blockchain address. ' +
      'Payments in local money go through codespar_pay (sending) or codespar_charge (collecting).',
    money: 'both',
  },
  {
    name: 'codespar_kyc',
    description:
      'Checks who someone is: validates a tax or identity number (CPF, CNPJ, RFC, NIT and similar), verifies an identity document and selfie, screens against sanctions lists, returns a risk score, onboards a person or a business, and reports the status of a verification. ' +
      'Use it before trusting a new customer, seller or supplier. ' +
      'Reading or saving details already on a shopper profile is codespar_manage_connections.',
    money: 'none',
  },
  {
    name: 'codespar_ledger',
    description:
      'Keeps the books: records double-entry journal entries (debits and credits between accounts), reads account balances, creates accounts, and issues or lists payment receipts. ' +
      'Use it for accounting questions such as posting a sale or a refund, the balance of receivables, or generating a receipt for a payment received. ' +
      'The spendable balance of the wallet is codespar_wallet; fiscal documents such as NF-e or CFDI are codespar_invoice.',
    money: 'none',
  },
  {
    name: 'codespar_issue',
    description:
      'Issues and controls payment cards for the business: creates virtual or physical cards for staff or purposes, freezes, unfreezes or cancels them, and reads a card. ' +
      'Use it for corporate or single-use cards, spending limits on them, and blocking a lost card. ' +
      "Charging a customer's card is codespar_charge; issuing an NF-e or other invoice is codespar_invoice.",
    money: 'none',
  },
];

export const META_TOOLS: ReadonlyArray<MetaToolDefinition> = DEFINITIONS.map((d) => ({
  ...d,
  input: META_TOOL_INPUTS[d.name],
  accepts: d.name === 'codespar_discover' ? DiscoverInput : META_TOOL_INPUTS[d.name],
  inputSchema: publishedInputSchema(META_TOOL_INPUTS[d.name]),
}));

/** The body of `GET /meta-tools.json`: the same list MCP `tools/list` answers, without `money`. */
export interface MetaToolsDocument {
  generated_from: 'tools/list';
  tools: Array<{ name: MetaToolName; description: string; inputSchema: MetaToolInputSchema }>;
}

/** Builds the catalog document served at `GET /meta-tools.json` and answered by `tools/list`. */
export function metaToolsDocument(): MetaToolsDocument {
  return {
    generated_from: 'tools/list',
    tools: META_TOOLS.map(({ name, description, inputSchema }) => ({ name, description, inputSchema })),
  };
}

/** True when `name` is one of the 15 published meta-tools. */
export function isMetaToolName(name: unknown): name is MetaToolName {
  return typeof name === 'string' && (META_TOOL_NAMES as readonly string[]).includes(name);
}
