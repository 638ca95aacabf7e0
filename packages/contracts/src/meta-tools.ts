/**
 * The 15 published meta-tools: the single source of truth for their names,
 * descriptions and input schemas.
 *
 * `GET /meta-tools.json`, MCP `tools/list` and the path A classifier prompt
 * all read from here, so a wording change lands everywhere at once. The
 * schemas are plain JSON Schema objects (not zod) because they are served to
 * clients verbatim.
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

/** A JSON Schema fragment. Kept loose on purpose: it is data served as-is. */
export interface JsonSchema {
  type?: 'object' | 'string' | 'number' | 'integer' | 'boolean' | 'array';
  description?: string;
  enum?: readonly string[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  pattern?: string;
  format?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: readonly string[];
  additionalProperties?: boolean | JsonSchema;
  oneOf?: readonly JsonSchema[];
}

/** The input schema of a meta-tool: always a JSON Schema object. */
export interface MetaToolInputSchema extends JsonSchema {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required: readonly string[];
}

/** One published meta-tool. */
export interface MetaToolDefinition {
  name: MetaToolName;
  /** What it does, when to use it, and which sibling to use instead. */
  description: string;
  inputSchema: MetaToolInputSchema;
  /** Money direction, used by routing and by the catalog; not served in `tools/list`. */
  money: MoneyDirection;
}

const str = (description: string): JsonSchema => ({ type: 'string', description });
const obj = (description: string): JsonSchema => ({ type: 'object', description });
const enumOf = (values: readonly string[], description: string): JsonSchema => ({ type: 'string', enum: values, description });
const list = (description: string): JsonSchema => ({ type: 'array', items: { type: 'object' }, description });

export const META_TOOLS: ReadonlyArray<MetaToolDefinition> = [
  {
    name: 'codespar_discover',
    description:
      'Searches the full catalog of provider tools (the individual rails behind every other meta-tool) for a use case described in plain words, and ranks them. ' +
      'Use it when the job is not covered by one of the other meta-tools, when you need a specific provider capability such as an exchange-rate lookup, a postal-code lookup or a marketplace integration, or when you do not know what a tool is called. ' +
      'If the request is plainly a payment, charge, invoice, shipment, message, card, identity check or ledger entry, call that meta-tool directly instead (for example codespar_pay, codespar_charge or codespar_invoice).',
    inputSchema: {
      type: 'object',
      properties: {
        use_case: str('What you want to get done, in plain words.'),
        query: str('Alias of use_case, accepted for older clients.'),
        category: str('Optional provider category to narrow the search, for example payments or logistics.'),
        country: { type: 'string', pattern: '^([A-Za-z]{2}|\\*)$', description: 'ISO 3166-1 alpha-2 country code, or * for any country.' },
        limit: { type: 'integer', minimum: 1, maximum: 20, default: 5, description: 'How many matches to return.' },
      },
      required: ['use_case'],
    },
    money: 'none',
  },
  {
    name: 'codespar_get_started',
    description:
      'Returns the ordered first steps for this workspace: what to configure, which providers to connect and which tools to try first. ' +
      'Use it when someone is new, asks how to begin, wants an overview of what the platform can do, or asks about setting up a sandbox or API key. ' +
      'To actually connect or check a provider account, use codespar_manage_connections; to look for a specific capability, use codespar_discover.',
    inputSchema: { type: 'object', properties: {}, required: [] },
    money: 'none',
  },
  {
    name: 'codespar_manage_connections',
    description:
      'Lists, checks, starts and completes connections between the workspace and provider accounts (payment processors, stores, ERPs), and reads or saves a shopper profile (document number, e-mail, delivery address) for later purchases. ' +
      'Use it to link or authorise an account, to ask whether a provider is already connected, to finish an authorisation flow, or to store and read saved customer details. ' +
      'It does not verify identity documents (use codespar_kyc) and does not send messages (use codespar_notify).',
    inputSchema: {
      type: 'object',
      properties: {
        action: enumOf(['list', 'status', 'initiate', 'connect_start', 'connect_finish', 'save_profile', 'get_profile'], 'What to do with connections or the shopper profile.'),
        environment: enumOf(['live', 'test'], 'Which environment the connection belongs to.'),
        server_id: str('The provider to connect or inspect.'),
        return_to: str('Where to send the user after the provider authorisation page.'),
        session_id: str('The session the connection flow belongs to.'),
        context_id: str('Opaque id of an authorisation flow in progress, returned by connect_start.'),
        consumer_id: str('The shopper whose profile is read or saved.'),
        profile: obj('Profile fields to save, such as document, e-mail, phone and address.'),
      },
      required: [],
    },
    money: 'none',
  },
  {
    name: 'codespar_checkout',
    description:
      'Creates a hosted checkout: a payment page or payment link for a set of cart items, where the customer chooses Pix, boleto or card and pays. ' +
      'Use it when you have items or a cart and want one link or page the buyer can pay through. ' +
      'To collect a single amount with no cart (a Pix charge, a boleto with a due date, a card charge), use codespar_charge; to buy something yourself from a store, use codespar_shop.',
    inputSchema: {
      type: 'object',
      properties: {
        items: { type: 'array', minItems: 1, items: { type: 'object' }, description: 'Cart lines: name, quantity and unit price.' },
        paymentMethod: enumOf(['pix', 'boleto', 'card'], 'Restrict the page to one payment method; all are offered when omitted.'),
        amount: { type: 'number', description: 'Total in major units (for example 59.90), when it should not be derived from the items.' },
        currency: str('ISO 4217 currency code, for example BRL.'),
        description: str('Shown to the buyer on the payment page.'),
        buyer: obj('Who is paying: name, e-mail, document.'),
        metadata: obj('Free-form key/value pairs echoed back on events.'),
        recipient: obj('Who receives the funds, when it is not the workspace itself.'),
      },
      required: ['items'],
    },
    money: 'in',
  },
  {
    name: 'codespar_pay',
    description:
      'Sends money out of the workspace: pays a Pix key or a Pix copy-and-paste code, pays a boleto by its digitable line, or makes a bank transfer (TED, SPEI and similar), and reports the status of a payment already sent. ' +
      'Use it when the workspace is the payer, for example paying a supplier, a bill or a person. ' +
      'To receive money from a customer use codespar_charge or codespar_checkout; for stablecoins or other crypto use codespar_crypto_pay.',
    inputSchema: {
      type: 'object',
      properties: {
        action: enumOf(['pay', 'status'], 'Make a payment, or check one already made.'),
        method: enumOf(['pix', 'card', 'boleto', 'wire', 'spei'], 'The rail to pay through. spei (Mexican interbank transfer) is a Rota extension.'),
        amount: { type: 'integer', minimum: 1, description: 'Amount in minor units (cents).' },
        currency: str('ISO 4217 currency code.'),
        country: str('ISO 3166-1 alpha-2 country of the payee.'),
        recipient: {
          description: 'A Pix key, or a bank account object for wires.',
          oneOf: [{ type: 'string' }, { type: 'object' }],
        },
        copia_e_cola: str('A Pix copy-and-paste (EMV) code to pay.'),
        consumer_id: str('The shopper on whose behalf the payment is made.'),
        checkout_session_id: str('A checkout to pay, when paying a hosted checkout.'),
        description: str('Note attached to the payment.'),
        mandateId: str('A pre-authorised mandate to pay under.'),
        payment_id: str('The payment to look up, with action status.'),
        linha_digitavel: str('The digitable line of a boleto to pay.'),
      },
      required: ['action'],
    },
    money: 'out',
  },
  {
    name: 'codespar_wallet',
    description:
      "Works with the workspace's own stored-value wallet: reads its balance, lists its statement of recent movements, or creates a Pix request to top it up. " +
      'Use it for questions such as how much is in the wallet, what moved in it this month, or to add funds to it. ' +
      'Accounting balances and journal entries belong to codespar_ledger; crypto wallets and addresses belong to codespar_crypto_pay.',
    inputSchema: {
      type: 'object',
      properties: {
        action: enumOf(['balance', 'statement', 'receive'], 'Read the balance, list movements, or create a top-up request.'),
        consumer_id: str('Whose wallet, when the workspace holds several.'),
        amount: { type: 'integer', minimum: 1, description: 'Top-up amount in minor units, for action receive.' },
        description: str('Note shown on the top-up request.'),
        dynamic: { type: 'boolean', description: 'Whether the top-up QR code is single-use with a fixed amount.' },
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'How many statement lines to return.' },
      },
      required: ['action'],
    },
    money: 'in_read',
  },
  {
    name: 'codespar_shop',
    description:
      'Shops on behalf of the user: searches merchants for products, buys the chosen item and reports whether a purchase was confirmed. ' +
      'Use it when the user wants to find, compare or buy goods (for example the cheapest model of something under a price). ' +
      'To sell your own items to a customer, use codespar_checkout; to look for an integration or tool rather than a product, use codespar_discover.',
    inputSchema: {
      type: 'object',
      properties: {
        action: enumOf(['search', 'checkout', 'checkout_status'], 'Search for products, buy, or check a purchase.'),
        merchant: str('Restrict to one merchant.'),
        paymentMethod: enumOf(['pix'], 'How the purchase is paid.'),
        query: str('What to look for, in plain words.'),
        limit: { type: 'integer', minimum: 1, description: 'How many search results to return.' },
        items: list('What to buy, as returned by a search.'),
        url: str('A product page to buy from directly.'),
        consumer_id: str('The shopper on whose behalf the purchase is made.'),
        checkout_session_id: str('The purchase to check, with action checkout_status.'),
        auto_pay: { type: 'boolean', description: 'Pay immediately instead of returning a payment to approve.' },
        buyer: obj('Buyer details for the merchant.'),
        address: obj('Delivery address for the purchase.'),
      },
      required: ['action'],
    },
    money: 'out',
  },
  {
    name: 'codespar_charge',
    description:
      'Collects a single amount from a customer: creates a Pix charge or QR code, a boleto with a due date, a card charge, or a wallet charge. ' +
      'Use it when the workspace is being paid and there is an amount and a payer but no cart, including recurring or instalment card charges. ' +
      'For a payment page covering several cart items use codespar_checkout; to pay someone else use codespar_pay; to be paid in crypto use codespar_crypto_pay. ' +
      'Rota extensions: action refund with a charge_id sends a charge back to the payer, and method also takes spei, oxxo and pse.',
    inputSchema: {
      type: 'object',
      properties: {
        action: {
          type: 'string',
          enum: ['charge', 'refund'],
          default: 'charge',
          description: 'Rota extension: charge (the default) collects; refund returns all or part (amount) of the charge named by charge_id.',
        },
        charge_id: str('Rota extension: the charge to refund, with action refund.'),
        amount: { type: 'number', description: 'Amount in major units (for example 150.00).' },
        currency: str('ISO 4217 currency code, for example BRL or MXN.'),
        method: enumOf(
          ['pix', 'boleto', 'card', 'wallet', 'spei', 'oxxo', 'pse'],
          'How the customer pays. spei (Mexican bank transfer), oxxo (Mexican cash voucher) and pse (Colombian online bank debit) are Rota extensions.',
        ),
        description: str('What the charge is for, shown to the payer.'),
        buyer: obj('Who pays: name, document, e-mail or phone.'),
        country: str('ISO 3166-1 alpha-2 country of the charge.'),
        due_date: { type: 'string', format: 'date', description: 'When a boleto or Pix charge expires (YYYY-MM-DD).' },
        metadata: obj('Free-form key/value pairs echoed back on events.'),
      },
      required: ['amount', 'currency', 'method', 'description', 'buyer'],
    },
    money: 'in',
  },
  {
    name: 'codespar_invoice',
    description:
      'Issues fiscal documents and follows them up: Brazilian NF-e for goods and NFS-e for services, or a generic electronic invoice (such as a CFDI); checks their status; and amends or cancels them with a correction or a reason. ' +
      'Use it for anything about a nota fiscal, factura or tax invoice, including fetching its XML or PDF. ' +
      'A plain payment receipt belongs to codespar_ledger, and asking a customer for money belongs to codespar_charge.',
    inputSchema: {
      type: 'object',
      properties: {
        action: { type: 'string', enum: ['issue', 'status', 'amend'], default: 'issue', description: 'Issue a document, check it, or amend or cancel it.' },
        type: enumOf(['nfe', 'nfse', 'invoice'], 'Which document: NF-e (goods), NFS-e (services) or a generic invoice.'),
        recipient: obj('Who the document is issued to, with their tax id.'),
        items: list('Lines of goods or services being invoiced.'),
        dueDate: { type: 'string', format: 'date', description: 'Payment due date printed on the document.' },
        invoice_id: str('The document to check or amend.'),
        correction: str('Text of the correction, for action amend.'),
        reason: str('Why the document is being cancelled or amended.'),
      },
      required: ['type'],
    },
    money: 'none',
  },
  {
    name: 'codespar_ship',
    description:
      'Handles parcels: quotes shipping prices across carriers, buys and prints a shipping label, and tracks a package by its tracking code. ' +
      'Use it for freight quotes, labels or waybills, and questions about where a package is or whether it was delivered. ' +
      'To tell the customer about a shipment, use codespar_notify; to save a delivery address on a shopper profile, use codespar_manage_connections.',
    inputSchema: {
      type: 'object',
      properties: {
        action: enumOf(['label', 'track', 'quote'], 'Buy a label, track a parcel, or quote prices.'),
        service_level: enumOf(['fastest', 'cheapest', 'standard'], 'Which trade-off to pick when several carriers qualify.'),
        origin: obj('Where the parcel leaves from (postal code and address).'),
        destination: obj('Where the parcel goes (postal code and address).'),
        items: list('Parcels or goods with weight and dimensions.'),
        tracking_code: str('The tracking code to follow, for action track.'),
        metadata: obj('Free-form key/value pairs echoed back on events.'),
      },
      required: ['action'],
    },
    money: 'none',
  },
  {
    name: 'codespar_notify',
    description:
      'Sends a message to a person over WhatsApp, e-mail or SMS, either free text or a template with variables. ' +
      'Use it to tell a customer, supplier or teammate something: order updates, reminders, confirmations, welcome notes. ' +
      'It only delivers messages: the charge, invoice or shipment a message talks about is created with codespar_charge, codespar_invoice or codespar_ship.',
    inputSchema: {
      type: 'object',
      properties: {
        channel: enumOf(['whatsapp', 'email', 'sms'], 'Which channel to use.'),
        to: str('Phone number in international format, or an e-mail address.'),
        template: str('A pre-approved template name, required by WhatsApp outside the reply window.'),
        message: str('Free text of the message.'),
        variables: obj('Values for the template placeholders.'),
      },
      required: ['channel', 'to'],
    },
    money: 'none',
  },
  {
    name: 'codespar_crypto_pay',
    description:
      'Sends or receives crypto, mostly stablecoins: USDC, USDT, BTC, ETH or MATIC on Ethereum, Polygon, Base, Solana or Bitcoin, including converting between local currency and crypto. ' +
      'Use it whenever the payment or receipt is in a coin or token, or involves a blockchain address. ' +
      'Payments in local money go through codespar_pay (sending) or codespar_charge (collecting).',
    inputSchema: {
      type: 'object',
      properties: {
        amount: { type: 'number', description: 'Amount in units of the coin (for example 100 or 0.05).' },
        currency: enumOf(['USDC', 'USDT', 'BTC', 'ETH', 'MATIC'], 'The coin or token.'),
        network: enumOf(['ethereum', 'polygon', 'base', 'solana', 'bitcoin'], 'The blockchain to use.'),
        direction: enumOf(['send', 'receive'], 'Whether the workspace pays or gets paid.'),
        counterparty: obj('The other side: wallet address, name, and country (required when sending).'),
      },
      required: ['amount', 'currency', 'direction'],
    },
    money: 'both',
  },
  {
    name: 'codespar_kyc',
    description:
      'Checks who someone is: validates a tax or identity number (CPF, CNPJ, RFC, NIT and similar), verifies an identity document and selfie, screens against sanctions lists, returns a risk score, onboards a person or a business, and reports the status of a verification. ' +
      'Use it before trusting a new customer, seller or supplier. ' +
      'Reading or saving details already on a shopper profile is codespar_manage_connections.',
    inputSchema: {
      type: 'object',
      properties: {
        buyer: obj('The person or company being checked: name, document, country.'),
        check_type: enumOf(['identity', 'document', 'risk-score', 'sanctions', 'onboarding', 'onboarding-business', 'status'], 'Which check to run.'),
        verification_id: str('The verification to look up, with check_type status.'),
        document_number: str('The tax or identity number to validate.'),
        consumer_id: str('The shopper being checked, when known.'),
      },
      required: ['buyer', 'check_type'],
    },
    money: 'none',
  },
  {
    name: 'codespar_ledger',
    description:
      'Keeps the books: records double-entry journal entries (debits and credits between accounts), reads account balances, creates accounts, and issues or lists payment receipts. ' +
      'Use it for accounting questions such as posting a sale or a refund, the balance of receivables, or generating a receipt for a payment received. ' +
      'The spendable balance of the wallet is codespar_wallet; fiscal documents such as NF-e or CFDI are codespar_invoice.',
    inputSchema: {
      type: 'object',
      properties: {
        action: enumOf(['entry', 'balance', 'account', 'receipt', 'receipts'], 'Post an entry, read a balance, create an account, or issue or list receipts.'),
        type: enumOf(['deposit', 'savings', 'external'], 'Kind of account, for action account.'),
        asset: str('Asset code of the amounts, for example BRL.'),
        scale: { type: 'integer', minimum: 0, description: 'Decimal places of the asset.' },
        source: list('Accounts debited, each with an amount.'),
        destination: list('Accounts credited, each with an amount.'),
        receipt_id: str('The receipt to fetch.'),
        consumer_id: str('The customer the receipt or account belongs to.'),
        limit: { type: 'integer', minimum: 1, description: 'How many receipts to list.' },
        account: str('The account to read.'),
        alias: str('A readable alias for a new account.'),
        name: str('Display name of a new account.'),
      },
      required: ['action'],
    },
    money: 'none',
  },
  {
    name: 'codespar_issue',
    description:
      'Issues and controls payment cards for the business: creates virtual or physical cards for staff or purposes, freezes, unfreezes or cancels them, and reads a card. ' +
      'Use it for corporate or single-use cards, spending limits on them, and blocking a lost card. ' +
      "Charging a customer's card is codespar_charge; issuing an NF-e or other invoice is codespar_invoice.",
    inputSchema: {
      type: 'object',
      properties: {
        action: enumOf(['card-virtual', 'card-physical', 'card-control', 'card-get'], 'Create a virtual or physical card, change its state, or read it.'),
        control: enumOf(['freeze', 'unfreeze', 'cancel'], 'The state change, for action card-control.'),
        cardholder_id: str('The person the card is for.'),
        program_id: str('The card programme to issue under.'),
        card_id: str('The card to control or read.'),
        reason: str('Why the card is being frozen or cancelled.'),
        shipping_address: obj('Where to mail a physical card.'),
      },
      required: ['action'],
    },
    money: 'none',
  },
];

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
