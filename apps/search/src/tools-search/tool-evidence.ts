import type { MetaToolName } from '@rota/contracts/meta-tools';

/**
 * Evidence table of the lexical fallback: which lexicon concepts point at
 * which meta-tool, and how strongly.
 *
 * A rule is `[tool, weight, ...groups]`. Each group is a `|`-separated list
 * of concept ids and is satisfied when any of them is present; a group
 * starting with `!` is satisfied when none of them is. A rule fires when all
 * its groups are satisfied and adds its weight (negative weights subtract).
 *
 * Rough scale: about 4 is a word that names the tool's job on its own
 * ("boleto" is not, "NF-e" is), 2 to 3 a strong hint, 1 or less a nudge.
 * Combination rules carry the cases single words cannot decide, such as
 * "send" + "Pix" (paying) against "charge" + "Pix" (collecting).
 */

type Short =
  | 'discover'
  | 'start'
  | 'conn'
  | 'checkout'
  | 'pay'
  | 'wallet'
  | 'shop'
  | 'charge'
  | 'invoice'
  | 'ship'
  | 'notify'
  | 'crypto'
  | 'kyc'
  | 'ledger'
  | 'issue';

export const SHORT_TO_TOOL: Readonly<Record<Short, MetaToolName>> = {
  discover: 'codespar_discover',
  start: 'codespar_get_started',
  conn: 'codespar_manage_connections',
  checkout: 'codespar_checkout',
  pay: 'codespar_pay',
  wallet: 'codespar_wallet',
  shop: 'codespar_shop',
  charge: 'codespar_charge',
  invoice: 'codespar_invoice',
  ship: 'codespar_ship',
  notify: 'codespar_notify',
  crypto: 'codespar_crypto_pay',
  kyc: 'codespar_kyc',
  ledger: 'codespar_ledger',
  issue: 'codespar_issue',
};

export type EvidenceRule = readonly [Short, number, ...string[]];

const TOOLING = 'obj.tool|obj.integration|obj.catalog|obj.provider';
const CHANNEL = 'chan.whatsapp|chan.email|chan.sms';
const LOCAL_RAIL = 'rail.pix|rail.boleto|rail.card|rail.card_credit|rail.cash_voucher|rail.pse';
const SHIP_OBJ = 'obj.shipping|obj.parcel|obj.weight|obj.postal_code|obj.carrier|obj.label';
const CARD_STYLE = 'obj.virtual|obj.physical|obj.corporate|obj.single_use';
const KYC_SUBJECT = 'obj.tax_id|obj.identity|obj.document|party.seller|party.company|party.customer|party.supplier';
const LEDGER_CTX = 'obj.ledger|obj.ledger_entry|obj.ledger_account';

export const EVIDENCE: readonly EvidenceRule[] = [
  // ------------------------------------------------------------ discover
  ['discover', 2.5, 'obj.tool'],
  ['discover', 2, 'obj.integration'],
  ['discover', 2.5, 'obj.catalog'],
  ['discover', 1, 'obj.provider'],
  ['discover', 1.5, 'q.unknown_name'],
  ['discover', 0.5, 'q.is_there'],
  ['discover', 1.5, 'q.is_there', 'q.unknown_name'],
  ['discover', 1.5, 'obj.lookup_data'],
  ['discover', 0.6, 'obj.platform_brand'],
  ['discover', 2.5, TOOLING, 'q.is_there|q.unknown_name|act.search'],
  ['discover', 1, 'obj.lookup_data', 'q.is_there|q.unknown_name|act.search|act.verify'],
  ['discover', 1, 'obj.postal_code', 'q.is_there|q.unknown_name|obj.tool'],
  ['discover', -1.5, 'act.connect'],
  ['discover', -1, 'obj.profile'],

  // ------------------------------------------------------------ get started
  ['start', 3, 'gs.start'],
  ['start', 3, 'gs.new'],
  ['start', 3, 'gs.steps'],
  ['start', 4, 'gs.overview'],
  ['start', 2.5, 'gs.sandbox'],
  ['start', 3, 'gs.api_key'],
  ['start', 1.2, 'gs.setup'],
  ['start', 1, 'gs.platform'],
  ['start', 1.2, 'act.start'],
  ['start', 0.6, 'act.help'],
  ['start', 1, 'act.help', 'gs.setup|gs.platform|act.start|gs.steps'],
  ['start', 1, 'act.start', 'gs.setup|gs.platform|gs.new'],
  [
    'start',
    -1.5,
    'gs.setup|act.start',
    'obj.checkout|obj.cart|act.charge|obj.recurring|rail.card|act.connect|act.topup',
  ],
  ['start', -1.5, 'act.start', 'act.verify|obj.verification|obj.identity'],

  // ------------------------------------------------------------ connections and profile
  ['conn', 3.5, 'act.connect'],
  ['conn', 3, 'obj.profile'],
  ['conn', 1, 'obj.provider_brand'],
  ['conn', 0.8, 'obj.platform_brand'],
  ['conn', 0.8, 'obj.workspace'],
  ['conn', 0.5, 'obj.account'],
  ['conn', 1, 'act.save'],
  [
    'conn',
    2.5,
    'act.save',
    'obj.address|obj.tax_id|chan.email|obj.email_address|obj.phone',
    '!act.send|act.notify|obj.message',
  ],
  ['conn', 1, 'act.save', 'obj.profile'],
  ['conn', 1, 'obj.tax_id|chan.email|obj.address|obj.phone', 'obj.profile'],
  ['conn', 1.5, 'q.status|obj.validity', 'obj.provider_brand|obj.platform_brand|obj.integration'],
  ['conn', 1, 'obj.provider|obj.account', 'act.connect'],

  // ------------------------------------------------------------ checkout
  ['checkout', 4, 'obj.checkout'],
  ['checkout', 2.5, 'obj.cart'],
  ['checkout', 1.5, 'obj.hosted'],
  ['checkout', 0.8, 'obj.link'],
  ['checkout', 2, 'obj.link', 'obj.payment|act.pay'],
  ['checkout', 1, 'obj.link', 'party.customer|obj.product|obj.goods|obj.cart'],
  ['checkout', 1.2, 'obj.product'],
  ['checkout', 1, 'obj.product|obj.cart', LOCAL_RAIL],
  ['checkout', 0.8, 'rail.pix|rail.boleto', 'rail.card|rail.card_credit|rail.cash_voucher'],
  ['checkout', 0.6, 'obj.goods', 'obj.amount', 'act.create'],
  ['checkout', -1.5, CHANNEL],
  ['checkout', -1, 'act.buy'],

  // ------------------------------------------------------------ pay (money out)
  ['pay', 2.2, 'act.pay'],
  ['pay', 2.5, 'act.transfer'],
  ['pay', 2.5, 'rail.wire'],
  ['pay', 3, 'rail.pix_key'],
  ['pay', 3.5, 'rail.pix_copy_paste'],
  ['pay', 3, 'rail.boleto_line'],
  ['pay', 1.5, 'obj.bank_account'],
  ['pay', 0.8, 'obj.bank_brand'],
  ['pay', 1.2, 'party.supplier'],
  ['pay', 1.2, 'act.sent'],
  ['pay', 1.5, 'obj.bill'],
  ['pay', 1, 'rail.pix'],
  ['pay', 0.8, 'rail.boleto'],
  ['pay', 0.3, 'obj.amount'],
  ['pay', 2.5, 'act.send', 'rail.pix|obj.money|obj.amount|obj.currency|obj.payment'],
  ['pay', 1.5, 'act.pay', 'rail.boleto|rail.pix|obj.bill'],
  ['pay', 1, 'act.pay|act.send|act.transfer', 'party.supplier'],
  ['pay', 1.5, 'act.sent|q.status', 'obj.payment|act.transfer|rail.pix|rail.wire|act.pay'],
  ['pay', 1.5, 'act.sent', 'q.status'],
  ['pay', 1.5, 'rail.pix', 'obj.email_address|obj.phone'],
  ['pay', -2.5, 'act.pay_me'],
  // The customer paying is money coming in, whatever the verb.
  ['pay', -1.5, 'act.pay', 'party.customer', '!party.supplier|obj.refund'],
  ['pay', -2, 'obj.receipt'],
  ['pay', -2, 'obj.invoice|obj.invoice_weak', '!act.pay'],
  // Paying a supplier's invoice or bill is an outgoing payment, not invoicing.
  ['pay', 2, 'act.pay', 'obj.invoice|obj.invoice_weak|obj.bill'],
  ['pay', 2.5, 'act.topup', 'obj.account|obj.bank_account|obj.bank_brand', '!obj.wallet'],
  ['pay', -2, 'act.charge'],
  ['pay', -2, 'obj.crypto|obj.crypto_address|obj.chain'],
  ['pay', -0.8, 'act.buy'],
  ['pay', -1.5, 'obj.wallet|act.topup'],
  ['pay', -1.5, 'obj.checkout|obj.cart'],

  // ------------------------------------------------------------ wallet
  ['wallet', 3.5, 'obj.wallet'],
  ['wallet', 2, 'obj.balance'],
  ['wallet', 1.8, 'obj.statement'],
  ['wallet', 2.5, 'act.topup'],
  ['wallet', 2.5, 'q.how_much_have'],
  ['wallet', 1.5, 'obj.wallet', 'obj.balance|obj.statement|act.topup|act.show|q.how_much_have|rail.pix|rail.qr'],
  ['wallet', 1, 'rail.qr', 'act.topup'],
  ['wallet', -1.5, 'act.topup', 'obj.account|obj.bank_account|obj.bank_brand', '!obj.wallet'],
  ['wallet', -2.5, 'obj.balance|obj.statement', LEDGER_CTX + '|obj.ledger_name'],
  ['wallet', -3, 'obj.wallet', 'obj.crypto|obj.chain|obj.crypto_address'],

  // ------------------------------------------------------------ shop
  ['shop', 3, 'act.buy'],
  ['shop', 2, 'obj.price_cap'],
  ['shop', 1.5, 'obj.cheap'],
  ['shop', 1.5, 'obj.goods'],
  ['shop', 1, 'obj.product_spec'],
  ['shop', 1, 'obj.store'],
  ['shop', 0.8, 'act.search'],
  ['shop', 1.5, 'act.search|act.compare', 'obj.goods|obj.product_spec|obj.cheap|obj.price_cap|obj.store'],
  ['shop', 1, 'q.status', 'act.buy'],
  ['shop', 1.5, 'act.buy', 'act.pay|rail.pix'],
  ['shop', -2, TOOLING],
  ['shop', -1.5, 'obj.cheap', SHIP_OBJ],
  ['shop', -1.5, 'obj.crypto|obj.crypto_address'],
  ['shop', -1.5, 'obj.checkout|obj.cart', '!act.buy'],

  // ------------------------------------------------------------ charge (money in)
  ['charge', 3.5, 'act.charge'],
  ['charge', 1.8, 'obj.due'],
  ['charge', 1.2, 'rail.boleto'],
  ['charge', 1, 'rail.pix'],
  ['charge', 0.4, 'rail.card'],
  ['charge', 1, 'rail.card_credit'],
  ['charge', 2.2, 'rail.cash_voucher'],
  ['charge', 2, 'rail.pse'],
  ['charge', 1.2, 'act.receive'],
  ['charge', 2.5, 'act.pay_me'],
  ['charge', 1.2, 'obj.recurring'],
  ['charge', 2, 'obj.installments'],
  ['charge', 0.7, 'party.customer'],
  ['charge', 0.3, 'obj.amount'],
  ['charge', 1.5, 'act.create|act.issue', 'rail.boleto|rail.pix|rail.cash_voucher', '!obj.wallet', '!act.topup'],
  ['charge', 1, 'rail.qr', 'rail.pix', 'party.customer|act.charge|act.receive'],
  ['charge', 2.5, 'obj.es_cargo', 'rail.card|party.customer|obj.amount'],
  ['charge', 0.8, 'party.customer', LOCAL_RAIL],
  ['charge', -2.5, 'obj.crypto|obj.crypto_address'],
  ['charge', -1.5, 'obj.checkout|obj.cart'],
  ['charge', -1.5, CHANNEL],
  ['charge', -1.5, 'act.topup|obj.wallet'],

  // ------------------------------------------------------------ invoice
  ['invoice', 4, 'obj.invoice'],
  ['invoice', 1.8, 'obj.invoice_weak'],
  ['invoice', 4, 'obj.invoice_correction'],
  ['invoice', 0.8, 'act.issue'],
  ['invoice', 0.8, 'act.download'],
  ['invoice', 1, 'obj.service', 'act.issue|obj.invoice|obj.invoice_weak'],
  ['invoice', 1.5, 'act.issue|act.cancel|act.download|act.correct', 'obj.invoice_weak'],
  ['invoice', 1, 'act.cancel|act.correct', 'obj.invoice'],
  ['invoice', -1.5, CHANNEL],
  ['invoice', -2.5, 'act.pay', '!act.issue'],

  // ------------------------------------------------------------ ship
  ['ship', 3, 'obj.shipping'],
  ['ship', 3, 'obj.label'],
  ['ship', 2, 'obj.parcel'],
  ['ship', 3, 'obj.carrier'],
  ['ship', 3, 'act.track'],
  ['ship', 4, 'obj.tracking_code'],
  ['ship', 1.8, 'obj.delivered'],
  ['ship', 1, 'q.where_is'],
  ['ship', 2, 'q.where_is', 'obj.parcel|obj.order'],
  ['ship', 2, 'obj.weight'],
  ['ship', 1, 'obj.postal_code'],
  ['ship', 1, 'obj.service_level'],
  ['ship', 1, 'act.quote'],
  ['ship', 1.5, 'act.quote|q.how_much|act.compare', SHIP_OBJ],
  ['ship', 1, 'act.print', 'obj.label'],
  ['ship', 1, 'obj.cheap', SHIP_OBJ],
  ['ship', 1, 'obj.order', 'act.track|q.where_is|obj.delivered'],
  ['ship', -2, CHANNEL],
  ['ship', -1.5, 'act.buy', '!act.track'],

  // ------------------------------------------------------------ notify
  ['notify', 4, 'chan.whatsapp'],
  ['notify', 3, 'chan.email'],
  ['notify', 4, 'chan.sms'],
  ['notify', 2.2, 'obj.message'],
  ['notify', 2.5, 'act.notify'],
  ['notify', 1, 'act.send', 'act.notify'],
  ['notify', 1.5, 'act.send|act.notify', CHANNEL + '|obj.message'],
  ['notify', 0.5, 'obj.email_address|obj.phone', 'act.send|obj.message|act.notify'],
  ['notify', -2.5, 'chan.email', 'obj.profile|act.save', '!act.send|act.notify|obj.message'],
  ['notify', -1, 'chan.email', 'obj.tax_id', '!act.send'],

  // ------------------------------------------------------------ crypto
  ['crypto', 4.5, 'obj.crypto'],
  ['crypto', 2, 'obj.chain'],
  ['crypto', 4, 'obj.crypto_address'],
  ['crypto', 2, 'obj.crypto_exchange'],
  ['crypto', 0.5, 'act.convert'],
  ['crypto', 1, 'obj.crypto|obj.chain', 'act.send|act.pay|act.transfer|act.receive|act.convert|act.charge'],
  ['crypto', 1, 'obj.address', 'obj.crypto|obj.chain'],
  ['crypto', 1, 'obj.wallet', 'obj.chain|obj.crypto'],

  // ------------------------------------------------------------ kyc
  ['kyc', 2.5, 'obj.tax_id'],
  ['kyc', 3.5, 'obj.identity'],
  ['kyc', 1.5, 'obj.document'],
  ['kyc', 4, 'obj.sanctions'],
  ['kyc', 2.5, 'obj.risk'],
  ['kyc', 0.8, 'obj.validity'],
  ['kyc', 1, 'act.verify'],
  ['kyc', 2.5, 'obj.verification'],
  ['kyc', 1.5, 'act.verify|obj.verification', KYC_SUBJECT],
  ['kyc', 1.5, 'obj.validity', 'obj.tax_id|party.company'],
  ['kyc', 0.5, 'party.seller'],
  ['kyc', 1, 'q.status', 'act.verify|obj.verification'],
  ['kyc', -2, 'obj.tax_id|obj.document', 'obj.profile|act.save'],
  [
    'kyc',
    -1.5,
    'act.verify',
    'obj.wallet|obj.balance|obj.statement|obj.parcel|obj.shipping|obj.invoice|obj.invoice_weak',
  ],

  // ------------------------------------------------------------ ledger
  ['ledger', 4, 'obj.ledger'],
  ['ledger', 3, 'obj.ledger_entry'],
  ['ledger', 4, 'obj.ledger_account'],
  ['ledger', 1.5, 'obj.debit'],
  ['ledger', 0.6, 'obj.credit'],
  ['ledger', 2.5, 'obj.debit', 'obj.credit'],
  ['ledger', 3, 'obj.es_cargo', 'obj.credit'],
  ['ledger', 0.8, 'obj.ledger_name'],
  ['ledger', 1, 'obj.ledger_name', 'obj.debit|obj.credit|act.record|obj.ledger_entry|obj.es_cargo'],
  ['ledger', 3.5, 'obj.receipt'],
  ['ledger', 1.2, 'obj.refund'],
  ['ledger', 1.5, 'obj.refund', 'act.record|' + LEDGER_CTX],
  ['ledger', 1.2, 'act.record'],
  ['ledger', 0.8, 'act.record', 'obj.payment|obj.order|obj.refund|obj.amount|obj.ledger_name'],
  ['ledger', 1, 'obj.balance|act.show', LEDGER_CTX],
  ['ledger', 1, 'obj.account', 'act.create', '!act.connect', '!obj.bank_account'],
  ['ledger', -0.6, 'obj.credit', 'rail.card_credit|rail.card'],

  // ------------------------------------------------------------ issue (cards for the business)
  ['issue', 1.5, 'rail.card'],
  ['issue', 2, 'obj.virtual'],
  ['issue', 1, 'obj.physical'],
  ['issue', 1.5, 'obj.corporate'],
  ['issue', 1.2, 'obj.single_use'],
  ['issue', 2.5, 'obj.card_ending'],
  ['issue', 1, 'act.freeze|act.unfreeze'],
  ['issue', 0.6, 'obj.lost'],
  ['issue', 3, 'rail.card', 'act.freeze|act.unfreeze'],
  ['issue', 2, 'rail.card', CARD_STYLE],
  ['issue', 1.5, 'rail.card', 'act.cancel|act.issue|obj.lost'],
  ['issue', 1, 'rail.card', 'act.create', '!party.customer'],
  ['issue', 1.5, 'rail.card', 'party.staff'],
  ['issue', 1, 'rail.card', 'obj.limit'],
  ['issue', 1, 'rail.card', 'act.show', '!party.customer'],
  ['issue', -1, 'rail.card_credit'],
  ['issue', -1.5, 'rail.card', 'act.charge|party.customer|obj.installments|obj.es_cargo|act.receive'],
  ['issue', -1.5, 'rail.card', 'obj.checkout|obj.product|obj.cart'],

  // ------------------------------------------------------------ off-topic context drags everything down
  ...(Object.keys(SHORT_TO_TOOL) as Short[]).flatMap((t): EvidenceRule[] => [
    [t, -2, 'ctx.offtopic'],
    [t, -1, 'ctx.greeting'],
  ]),
  // "What can you do: payments, shipping, invoices?" names domains only as examples.
  ...(Object.keys(SHORT_TO_TOOL) as Short[])
    .filter((t) => t !== 'start')
    .map((t): EvidenceRule => [t, -1, 'gs.overview']),
];

/** A short plain phrase per tool, used to finish rationales. */
export const TOOL_GIST: Readonly<Record<MetaToolName, string>> = {
  codespar_discover: 'looking for a provider capability in the catalog',
  codespar_get_started: 'first steps and an overview of the platform',
  codespar_manage_connections: 'connecting provider accounts or reading a saved profile',
  codespar_checkout: 'a hosted checkout or payment link for cart items',
  codespar_pay: 'paying someone from the workspace',
  codespar_wallet: 'the wallet balance, statement or top-up',
  codespar_shop: 'finding or buying a product from a store',
  codespar_charge: 'collecting money from a customer',
  codespar_invoice: 'issuing or managing a fiscal invoice',
  codespar_ship: 'shipping quotes, labels or tracking',
  codespar_notify: 'sending a WhatsApp, e-mail or SMS message',
  codespar_crypto_pay: 'sending or receiving crypto',
  codespar_kyc: 'verifying a person or company',
  codespar_ledger: 'bookkeeping entries, balances or receipts',
  codespar_issue: 'issuing or controlling a business card',
};
