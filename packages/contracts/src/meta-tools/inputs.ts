import { z } from 'zod';
import { ENVIRONMENTS } from '../tenant';

/**
 * The inputs of the 15 published meta-tools, as zod: the one source of each
 * tool's arguments. The JSON Schema clients read is generated from these
 * (`./json-schema`), and execute validates arguments with them, so what a
 * tool publishes and what it accepts cannot drift apart.
 *
 * Each field's description is part of the published document: changing its
 * words changes what agents read.
 */

const text = (description: string) => z.string().describe(description);
const choice = <const T extends readonly [string, ...string[]]>(values: T, description: string) =>
  z.enum(values).describe(description);
/** Any JSON object; its fields are the tool's business. */
const openObject = (description: string) => z.record(z.string(), z.unknown()).describe(description);
const objectList = (description: string) => z.array(z.record(z.string(), z.unknown())).describe(description);

/** Largest `limit` a `codespar_discover` caller may ask for. */
export const DISCOVER_MAX_LIMIT = 20;
/** `limit` when a `codespar_discover` caller sends none. */
export const DISCOVER_DEFAULT_LIMIT = 5;

const DISCOVER_NEEDS_TEXT = 'use_case (or its alias query) must describe what you want to do';

const discover = z.object({
  use_case: z
    .string({ error: (issue) => (issue.input === undefined ? DISCOVER_NEEDS_TEXT : undefined) })
    .max(2000)
    .refine((s) => s.trim() !== '', DISCOVER_NEEDS_TEXT)
    .describe('What you want to get done, in plain words.'),
  query: z.string().max(2000).describe('Alias of use_case, accepted for older clients.').optional(),
  category: z
    .string()
    .min(1)
    .max(64)
    .describe('Optional provider category to narrow the search, for example payments or logistics.')
    .optional(),
  country: z
    .string()
    .regex(/^([A-Za-z]{2}|\*)$/, 'country must be an ISO 3166-1 alpha-2 code or *')
    .describe('ISO 3166-1 alpha-2 country code, or * for any country.')
    .optional(),
  limit: z
    .number()
    .int()
    .min(1)
    .max(DISCOVER_MAX_LIMIT)
    .default(DISCOVER_DEFAULT_LIMIT)
    .describe('How many matches to return.'),
});

/** Published inputs by tool name, in published order. */
export const META_TOOL_INPUTS = {
  codespar_discover: discover,
  codespar_get_started: z.object({}),
  codespar_manage_connections: z.object({
    action: choice(
      ['list', 'status', 'initiate', 'connect_start', 'connect_finish', 'save_profile', 'get_profile'],
      'What to do with connections or the shopper profile.',
    ).optional(),
    environment: choice(ENVIRONMENTS, 'Which environment the connection belongs to.').optional(),
    server_id: text('The provider to connect or inspect.').optional(),
    return_to: text('Where to send the user after the provider authorisation page.').optional(),
    session_id: text('The session the connection flow belongs to.').optional(),
    context_id: text('Opaque id of an authorisation flow in progress, returned by connect_start.').optional(),
    consumer_id: text('The shopper whose profile is read or saved.').optional(),
    profile: openObject('Profile fields to save, such as document, e-mail, phone and address.').optional(),
    credentials: openObject(
      'Secrets for connecting: with connect_finish, the fields connect_start named for a key-based provider; with connect_start, your own OAuth client (client_id, client_secret) when the deployment has none for that provider. Stored sealed, never echoed or recorded.',
    ).optional(),
  }),
  codespar_checkout: z.object({
    items: z.array(z.record(z.string(), z.unknown())).min(1).describe('Cart lines: name, quantity and unit price.'),
    paymentMethod: choice(
      ['pix', 'boleto', 'card'],
      'Restrict the page to one payment method; all are offered when omitted.',
    ).optional(),
    amount: z
      .number()
      .describe('Total in major units (for example 59.90), when it should not be derived from the items.')
      .optional(),
    currency: text('ISO 4217 currency code, for example BRL.').optional(),
    description: text('Shown to the buyer on the payment page.').optional(),
    buyer: openObject('Who is paying: name, e-mail, document.').optional(),
    metadata: openObject('Free-form key/value pairs echoed back on events.').optional(),
    recipient: openObject('Who receives the funds, when it is not the workspace itself.').optional(),
  }),
  codespar_pay: z.object({
    action: choice(['pay', 'status'], 'Make a payment, or check one already made.'),
    method: choice(
      ['pix', 'card', 'boleto', 'wire', 'spei'],
      'The rail to pay through. spei (Mexican interbank transfer) is a Rota extension.',
    ).optional(),
    amount: z.number().int().min(1).describe('Amount in minor units (cents).').optional(),
    currency: text('ISO 4217 currency code.').optional(),
    country: text('ISO 3166-1 alpha-2 country of the payee.').optional(),
    recipient: z
      .xor([z.string(), z.record(z.string(), z.unknown())])
      .describe('A Pix key, or a bank account object for wires.')
      .optional(),
    copia_e_cola: text('A Pix copy-and-paste (EMV) code to pay.').optional(),
    consumer_id: text('The shopper on whose behalf the payment is made.').optional(),
    checkout_session_id: text('A checkout to pay, when paying a hosted checkout.').optional(),
    description: text('Note attached to the payment.').optional(),
    mandateId: text('A pre-authorised mandate to pay under.').optional(),
    payment_id: text('The payment to look up, with action status.').optional(),
    linha_digitavel: text('The digitable line of a boleto to pay.').optional(),
  }),
  codespar_wallet: z.object({
    action: choice(
      ['balance', 'statement', 'receive'],
      'Read the balance, list movements, or create a top-up request.',
    ),
    consumer_id: text('Whose wallet, when the workspace holds several.').optional(),
    amount: z.number().int().min(1).describe('Top-up amount in minor units, for action receive.').optional(),
    description: text('Note shown on the top-up request.').optional(),
    dynamic: z.boolean().describe('Whether the top-up QR code is single-use with a fixed amount.').optional(),
    limit: z.number().int().min(1).max(100).describe('How many statement lines to return.').optional(),
  }),
  codespar_shop: z.object({
    action: choice(['search', 'checkout', 'checkout_status'], 'Search for products, buy, or check a purchase.'),
    merchant: text('Restrict to one merchant.').optional(),
    paymentMethod: choice(['pix'], 'How the purchase is paid.').optional(),
    query: text('What to look for, in plain words.').optional(),
    limit: z.number().int().min(1).describe('How many search results to return.').optional(),
    items: objectList('What to buy, as returned by a search.').optional(),
    url: text('A product page to buy from directly.').optional(),
    consumer_id: text('The shopper on whose behalf the purchase is made.').optional(),
    checkout_session_id: text('The purchase to check, with action checkout_status.').optional(),
    auto_pay: z.boolean().describe('Pay immediately instead of returning a payment to approve.').optional(),
    buyer: openObject('Buyer details for the merchant.').optional(),
    address: openObject('Delivery address for the purchase.').optional(),
  }),
  codespar_charge: z.object({
    action: z
      .enum(['charge', 'refund'])
      .default('charge')
      .describe(
        'Rota extension: charge (the default) collects; refund returns all or part (amount) of the charge named by charge_id.',
      ),
    charge_id: text('Rota extension: the charge to refund, with action refund.').optional(),
    amount: z.number().describe('Amount in major units (for example 150.00).'),
    currency: text('ISO 4217 currency code, for example BRL or MXN.'),
    method: choice(
      ['pix', 'boleto', 'card', 'wallet', 'spei', 'oxxo', 'pse'],
      'How the customer pays. spei (Mexican bank transfer), oxxo (Mexican cash voucher) and pse (Colombian online bank debit) are Rota extensions.',
    ),
    description: text('What the charge is for, shown to the payer.'),
    buyer: openObject('Who pays: name, document, e-mail or phone.'),
    country: text('ISO 3166-1 alpha-2 country of the charge.').optional(),
    due_date: z.iso.date().describe('When a boleto or Pix charge expires (YYYY-MM-DD).').optional(),
    metadata: openObject('Free-form key/value pairs echoed back on events.').optional(),
  }),
  codespar_invoice: z.object({
    action: z
      .enum(['issue', 'status', 'amend'])
      .default('issue')
      .describe('Issue a document, check it, or amend or cancel it.'),
    type: choice(['nfe', 'nfse', 'invoice'], 'Which document: NF-e (goods), NFS-e (services) or a generic invoice.'),
    recipient: openObject('Who the document is issued to, with their tax id.').optional(),
    items: objectList('Lines of goods or services being invoiced.').optional(),
    dueDate: z.iso.date().describe('Payment due date printed on the document.').optional(),
    invoice_id: text('The document to check or amend.').optional(),
    correction: text('Text of the correction, for action amend.').optional(),
    reason: text('Why the document is being cancelled or amended.').optional(),
  }),
  codespar_ship: z.object({
    action: choice(['label', 'track', 'quote'], 'Buy a label, track a parcel, or quote prices.'),
    service_level: choice(
      ['fastest', 'cheapest', 'standard'],
      'Which trade-off to pick when several carriers qualify.',
    ).optional(),
    origin: openObject('Where the parcel leaves from (postal code and address).').optional(),
    destination: openObject('Where the parcel goes (postal code and address).').optional(),
    items: objectList('Parcels or goods with weight and dimensions.').optional(),
    tracking_code: text('The tracking code to follow, for action track.').optional(),
    metadata: openObject('Free-form key/value pairs echoed back on events.').optional(),
  }),
  codespar_notify: z.object({
    channel: choice(['whatsapp', 'email', 'sms'], 'Which channel to use.'),
    to: text('Phone number in international format, or an e-mail address.'),
    template: text('A pre-approved template name, required by WhatsApp outside the reply window.').optional(),
    message: text('Free text of the message.').optional(),
    variables: openObject('Values for the template placeholders.').optional(),
  }),
  codespar_crypto_pay: z.object({
    amount: z.number().describe('Amount in units of the coin (for example 100 or 0.05).'),
    currency: choice(['USDC', 'USDT', 'BTC', 'ETH', 'MATIC'], 'The coin or token.'),
    network: choice(['ethereum', 'polygon', 'base', 'solana', 'bitcoin'], 'The blockchain to use.').optional(),
    direction: choice(['send', 'receive'], 'Whether the workspace pays or gets paid.'),
    counterparty: openObject('The other side: wallet address, name, and country (required when sending).').optional(),
  }),
  codespar_kyc: z.object({
    buyer: openObject('The person or company being checked: name, document, country.'),
    check_type: choice(
      ['identity', 'document', 'risk-score', 'sanctions', 'onboarding', 'onboarding-business', 'status'],
      'Which check to run.',
    ),
    verification_id: text('The verification to look up, with check_type status.').optional(),
    document_number: text('The tax or identity number to validate.').optional(),
    consumer_id: text('The shopper being checked, when known.').optional(),
  }),
  codespar_ledger: z.object({
    action: choice(
      ['entry', 'balance', 'account', 'receipt', 'receipts'],
      'Post an entry, read a balance, create an account, or issue or list receipts.',
    ),
    type: choice(['deposit', 'savings', 'external'], 'Kind of account, for action account.').optional(),
    asset: text('Asset code of the amounts, for example BRL.').optional(),
    scale: z.number().int().min(0).describe('Decimal places of the asset.').optional(),
    source: objectList('Accounts debited, each with an amount.').optional(),
    destination: objectList('Accounts credited, each with an amount.').optional(),
    receipt_id: text('The receipt to fetch.').optional(),
    consumer_id: text('The customer the receipt or account belongs to.').optional(),
    limit: z.number().int().min(1).describe('How many receipts to list.').optional(),
    account: text('The account to read.').optional(),
    alias: text('A readable alias for a new account.').optional(),
    name: text('Display name of a new account.').optional(),
  }),
  codespar_issue: z.object({
    action: choice(
      ['card-virtual', 'card-physical', 'card-control', 'card-get'],
      'Create a virtual or physical card, change its state, or read it.',
    ),
    control: choice(['freeze', 'unfreeze', 'cancel'], 'The state change, for action card-control.').optional(),
    cardholder_id: text('The person the card is for.').optional(),
    program_id: text('The card programme to issue under.').optional(),
    card_id: text('The card to control or read.').optional(),
    reason: text('Why the card is being frozen or cancelled.').optional(),
    shipping_address: openObject('Where to mail a physical card.').optional(),
  }),
} as const;

/**
 * `query` is the documented alias of `use_case`: it stands in when
 * `use_case` is absent or blank. The only way what execute accepts for
 * `codespar_discover` differs from what it publishes.
 */
function useCaseFromAlias(input: unknown): unknown {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) return input;
  const { use_case: useCase, query } = input as Record<string, unknown>;
  const blank = useCase === undefined || (typeof useCase === 'string' && useCase.trim() === '');
  return blank && typeof query === 'string' ? { ...input, use_case: query } : input;
}

/**
 * What `codespar_discover` accepts: its published input, with `query`
 * standing in for a missing or blank `use_case`. `country` is an ISO 3166-1
 * alpha-2 code or `*` (any country); `limit` defaults to 5.
 */
export const DiscoverInput = z.preprocess(useCaseFromAlias, discover);
export type DiscoverInput = z.infer<typeof DiscoverInput>;
