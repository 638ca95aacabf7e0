import { randomBytes } from 'node:crypto';
import { isObject, type ProviderModel, type Reply, type RouteContext } from './types';

/**
 * A VTEX store: the legacy catalog search (products with their SKUs, sellers
 * and prices in reais as decimals), cart simulation, "place order" on the
 * checkout API (prices and totals in cents, one order group per placement,
 * paid by Pix) and the order management reads (`payment-pending` until the
 * payment arrives, then `ready-for-handling`; cancel before invoicing).
 * Errors are `{error: {code, message, exception}}` as the checkout API
 * words them.
 */

interface Sku {
  itemId: string;
  productId: string;
  name: string;
  brand: string;
  category: string;
  price: number;
  listPrice: number;
  stock: number;
  sellerId: string;
}

interface OrderItem {
  uniqueId: string;
  id: string;
  productId: string;
  name: string;
  quantity: number;
  seller: string;
  price: number;
  listPrice: number;
  sellingPrice: number;
  detailUrl: string;
}

interface Order {
  orderId: string;
  orderGroup: string;
  sequence: string;
  status: 'payment-pending' | 'ready-for-handling' | 'canceled';
  statusDescription: string;
  value: number;
  totals: { id: string; name: string; value: number }[];
  items: OrderItem[];
  clientProfileData: Record<string, unknown>;
  shippingData: Record<string, unknown>;
  paymentData: {
    transactions: {
      isActive: boolean;
      transactionId: string;
      merchantName: string;
      payments: Record<string, unknown>[];
    }[];
  };
  salesChannel: string;
  creationDate: string;
  lastChange: string;
}

interface VtexState {
  nextOrder: number;
  orders: Map<string, Order>;
  stock: Map<string, number>;
}

const ACCOUNT = 'lojasandbox';
/** The storefront's own address: product links point at the store, not at the platform. */
const STORE = 'https://lojasandbox.example';
/** The store's sellers: the store itself (1) and one marketplace partner. */
const SELLERS: Record<string, string> = { '1': 'Loja Sandbox', cafeecia: 'Café & Cia' };

/** A small Brazilian store, so a search has something to find. Prices in reais. */
export const VTEX_SANDBOX_SKUS: readonly Sku[] = [
  sku('1', 'Fone de Ouvido Bluetooth Sonora Pulse', 'Sonora', '/Eletrônicos/Áudio/', 199.9, 249.9, 40),
  sku('2', 'Caixa de Som Portátil Sonora Mini', 'Sonora', '/Eletrônicos/Áudio/', 149.9, 149.9, 25),
  sku('3', 'Café Especial em Grãos Serra Alta 500 g', 'Serra Alta', '/Mercearia/Café/', 54.9, 59.9, 200, 'cafeecia'),
  sku('4', 'Cafeteira Italiana Inox 6 Xícaras', 'Casa Viva', '/Casa/Cozinha/', 129, 159, 15),
  sku('5', 'Camiseta Básica de Algodão Orgânico', 'Tramas', '/Moda/Camisetas/', 79.9, 79.9, 60),
  sku('6', 'Tênis de Corrida Leve Passo Run', 'Passo', '/Moda/Calçados/', 349.9, 399.9, 0),
  sku('7', 'Garrafa Térmica Inox 1 L', 'Casa Viva', '/Casa/Cozinha/', 89.9, 89.9, 30),
];

function sku(
  id: string,
  name: string,
  brand: string,
  category: string,
  price: number,
  listPrice: number,
  stock: number,
  sellerId = '1',
): Sku {
  return { itemId: id, productId: id, name, brand, category, price, listPrice, stock, sellerId };
}

/** The two delivery options every address gets: price in cents, estimate in business days. */
const SLAS = [
  { id: 'Normal', price: 1500, shippingEstimate: '5bd' },
  { id: 'Expressa', price: 2990, shippingEstimate: '2bd' },
];
/** Orders of at least R$ 200,00 in items ship free with the Normal option. */
const FREE_SHIPPING_FROM = 20000;
/** VTEX's payment system id for Pix. */
const PIX = '125';

function err(status: number, code: string, message: string): Reply {
  return { status, body: { error: { code, message, exception: null } } };
}

function fold(s: string): string {
  return s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

function slug(s: string): string {
  return fold(s)
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

const cents = (reais: number): number => Math.round(reais * 100);

function productView(s: Sku, stock: number) {
  const linkText = slug(s.name);
  return {
    productId: s.productId,
    productName: s.name,
    brand: s.brand,
    linkText,
    productReference: `REF-${s.productId.padStart(4, '0')}`,
    categoryId: String(s.category.length),
    categories: [s.category],
    link: `${STORE}/${linkText}/p`,
    description: `${s.name}.`,
    items: [
      {
        itemId: s.itemId,
        name: s.name,
        nameComplete: s.name,
        measurementUnit: 'un',
        unitMultiplier: 1,
        images: [{ imageId: s.itemId, imageUrl: `${STORE}/arquivos/ids/${s.itemId}.jpg` }],
        sellers: [
          {
            sellerId: s.sellerId,
            sellerName: SELLERS[s.sellerId],
            addToCartLink: `${STORE}/checkout/cart/add?sku=${s.itemId}&qty=1&seller=${s.sellerId}&sc=1`,
            sellerDefault: true,
            commertialOffer: {
              Price: s.price,
              ListPrice: s.listPrice,
              PriceWithoutDiscount: s.price,
              AvailableQuantity: stock,
              IsAvailable: stock > 0,
            },
          },
        ],
      },
    ],
  };
}

/** `sellerId:1`, `skuId:3`, `productId:3`: the `fq` filters the sandbox understands. */
function matchesFilter(s: Sku, fq: string): boolean {
  const [field, value] = fq.split(':', 2);
  switch (field) {
    case 'sellerId':
      return s.sellerId === value;
    case 'skuId':
      return s.itemId === value;
    case 'productId':
      return s.productId === value;
    default:
      return true;
  }
}

interface Line {
  sku: Sku;
  quantity: number;
  seller: string;
  price?: number;
}

/** Checks cart lines against the catalog and stock; a Reply when one is wrong. */
function readLines(state: VtexState, items: unknown): Line[] | Reply {
  if (!Array.isArray(items) || items.length === 0) return err(400, 'CHK0001', 'O carrinho deve ter ao menos um item.');
  const lines: Line[] = [];
  for (const [i, raw] of items.entries()) {
    if (!isObject(raw)) return err(400, 'CHK0002', `Item ${i} inválido.`);
    const found = VTEX_SANDBOX_SKUS.find((s) => s.itemId === String(raw.id ?? ''));
    if (!found) return err(400, 'CHK0003', `O SKU ${String(raw.id ?? '')} não foi encontrado.`);
    const quantity = raw.quantity === undefined ? 1 : raw.quantity;
    if (typeof quantity !== 'number' || !Number.isInteger(quantity) || quantity < 1)
      return err(400, 'CHK0004', `Quantidade inválida para o item ${found.itemId}.`);
    const seller = raw.seller === undefined ? found.sellerId : String(raw.seller);
    if (seller !== found.sellerId) return err(400, 'CHK0005', `O seller ${seller} não vende o item ${found.itemId}.`);
    if (raw.price !== undefined && (typeof raw.price !== 'number' || !Number.isInteger(raw.price)))
      return err(400, 'CHK0006', 'O preço do item deve ser um inteiro em centavos.');
    lines.push({ sku: found, quantity, seller, ...(typeof raw.price === 'number' ? { price: raw.price } : {}) });
  }
  for (const line of lines)
    if ((state.stock.get(line.sku.itemId) ?? 0) < line.quantity)
      return err(400, 'ORD027', `Item ${line.sku.name} sem estoque suficiente.`);
  return lines;
}

function newId(): string {
  return randomBytes(16).toString('hex').toUpperCase();
}

function getOrder(ctx: RouteContext<VtexState>): Order | Reply {
  return (
    ctx.state.orders.get(ctx.params.orderId ?? '') ?? err(404, 'OMS003', `Pedido ${ctx.params.orderId} não encontrado.`)
  );
}

export const vtex: ProviderModel<VtexState> = {
  // VTEX has no idempotency header of its own; the sandbox honours the common one.
  idempotencyHeader: 'idempotency-key',
  conflictStatus: 409,
  error: err,
  unauthorized: (status) =>
    status === 401
      ? err(401, 'CHK0401', 'Credenciais de aplicação inválidas (AppKey/AppToken).')
      : err(403, 'CHK0403', 'Acesso negado para este recurso.'),
  createState: () => ({
    nextOrder: 1,
    orders: new Map(),
    stock: new Map(VTEX_SANDBOX_SKUS.map((s) => [s.itemId, s.stock])),
  }),
  markPaid(state, orderId) {
    const order = state.orders.get(orderId);
    if (!order || order.status !== 'payment-pending') return false;
    order.status = 'ready-for-handling';
    order.statusDescription = 'Pronto para o manuseio';
    order.lastChange = new Date().toISOString();
    for (const t of order.paymentData.transactions) for (const p of t.payments) p.status = 'approved';
    return true;
  },
  routes: [
    {
      name: 'search_products',
      method: 'GET',
      path: '/api/catalog_system/pub/products/search',
      handle(ctx) {
        const terms = fold(ctx.query.get('ft') ?? '')
          .split(/\s+/)
          .filter(Boolean);
        const from = Math.max(0, Number(ctx.query.get('_from') ?? 0) || 0);
        const to = Math.max(from, Number(ctx.query.get('_to') ?? from + 9) || 0);
        if (to - from + 1 > 50)
          return err(400, 'CAT0050', 'O intervalo entre _from e _to deve ter no máximo 50 itens.');
        const filters = ctx.query.getAll('fq');
        const found = VTEX_SANDBOX_SKUS.filter((s) => {
          const text = fold(`${s.name} ${s.brand} ${s.category}`);
          return terms.every((t) => text.includes(t)) && filters.every((f) => matchesFilter(s, f));
        });
        const page = found.slice(from, to + 1);
        return {
          status: page.length < found.length ? 206 : 200,
          body: page.map((s) => productView(s, ctx.state.stock.get(s.itemId) ?? 0)),
          headers: { resources: `${from}-${from + Math.max(page.length - 1, 0)}/${found.length}` },
        };
      },
    },
    {
      name: 'simulate_cart',
      method: 'POST',
      path: '/api/checkout/pub/orderForms/simulation',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        if (typeof b.country !== 'string' || !b.country) return err(400, 'CHK0010', 'Informe o país (country).');
        const lines = readLines(
          { ...ctx.state, stock: new Map(VTEX_SANDBOX_SKUS.map((s) => [s.itemId, Number.MAX_SAFE_INTEGER])) },
          b.items,
        );
        if (!Array.isArray(lines)) return lines;
        const items = lines.map((l, i) => {
          const available = (ctx.state.stock.get(l.sku.itemId) ?? 0) >= l.quantity;
          return {
            id: l.sku.itemId,
            requestIndex: i,
            quantity: l.quantity,
            seller: l.seller,
            price: cents(l.sku.price),
            listPrice: cents(l.sku.listPrice),
            sellingPrice: cents(l.sku.price),
            availability: available ? 'available' : 'withoutStock',
          };
        });
        const itemsTotal = items.reduce((s, i) => s + i.sellingPrice * i.quantity, 0);
        const postal = typeof b.postalCode === 'string' ? b.postalCode.replace(/\D/g, '') : '';
        return {
          status: 200,
          body: {
            items,
            postalCode: postal || null,
            country: b.country,
            logisticsInfo: postal
              ? items.map((_, i) => ({
                  itemIndex: i,
                  slas: SLAS.map((s) => ({
                    ...s,
                    price: s.id === 'Normal' && itemsTotal >= FREE_SHIPPING_FROM ? 0 : s.price,
                  })),
                }))
              : [],
            totals: [{ id: 'Items', name: 'Total dos Itens', value: itemsTotal }],
          },
        };
      },
    },
    {
      name: 'place_order',
      method: 'PUT',
      path: '/api/checkout/pub/orders',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        const lines = readLines(ctx.state, b.items);
        if (!Array.isArray(lines)) return lines;
        for (const l of lines)
          if (l.price !== undefined && l.price !== cents(l.sku.price))
            return err(400, 'CHK0045', `O preço do item ${l.sku.itemId} mudou: o valor atual é ${cents(l.sku.price)}.`);
        const profile = isObject(b.clientProfileData) ? b.clientProfileData : undefined;
        if (!profile || typeof profile.email !== 'string' || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(profile.email))
          return err(400, 'CHK0020', 'Informe o e-mail do comprador (clientProfileData.email).');
        const shipping = isObject(b.shippingData) ? b.shippingData : {};
        const address = isObject(shipping.address) ? shipping.address : undefined;
        const postal = address && typeof address.postalCode === 'string' ? address.postalCode.replace(/\D/g, '') : '';
        if (postal.length !== 8)
          return err(400, 'CHK0030', 'Informe um CEP de entrega válido (shippingData.address.postalCode).');
        const logistics = Array.isArray(shipping.logisticsInfo) ? shipping.logisticsInfo.filter(isObject) : [];
        const slaId = typeof logistics[0]?.selectedSla === 'string' ? logistics[0].selectedSla : 'Normal';
        const sla = SLAS.find((s) => s.id === slaId);
        if (!sla) return err(400, 'CHK0031', `A opção de entrega ${slaId} não está disponível para este CEP.`);
        const itemsTotal = lines.reduce((s, l) => s + cents(l.sku.price) * l.quantity, 0);
        const shippingTotal = sla.id === 'Normal' && itemsTotal >= FREE_SHIPPING_FROM ? 0 : sla.price;
        const value = itemsTotal + shippingTotal;
        const payment =
          isObject(b.paymentData) && Array.isArray(b.paymentData.payments)
            ? b.paymentData.payments.find(isObject)
            : undefined;
        const paymentSystem = payment?.paymentSystem === undefined ? PIX : String(payment.paymentSystem);
        if (paymentSystem !== PIX)
          return err(
            400,
            'CHK0040',
            `A forma de pagamento ${paymentSystem} não está disponível nesta loja; use Pix (${PIX}).`,
          );
        if (payment?.value !== undefined && payment.value !== value)
          return err(
            400,
            'CHK0041',
            `O valor do pagamento (${String(payment.value)}) difere do total do pedido (${value}).`,
          );

        const group = String(1_500_000_000_000 + ctx.state.nextOrder++);
        const orderId = `${group}-01`;
        const now = new Date().toISOString();
        const transactionId = newId();
        const order: Order = {
          orderId,
          orderGroup: group,
          sequence: String(500000 + ctx.state.nextOrder),
          status: 'payment-pending',
          statusDescription: 'Pagamento Pendente',
          value,
          totals: [
            { id: 'Items', name: 'Total dos Itens', value: itemsTotal },
            { id: 'Discounts', name: 'Total dos Descontos', value: 0 },
            { id: 'Shipping', name: 'Total do Frete', value: shippingTotal },
            { id: 'Tax', name: 'Total da Taxa', value: 0 },
          ],
          items: lines.map((l) => ({
            uniqueId: newId(),
            id: l.sku.itemId,
            productId: l.sku.productId,
            name: l.sku.name,
            quantity: l.quantity,
            seller: l.seller,
            price: cents(l.sku.price),
            listPrice: cents(l.sku.listPrice),
            sellingPrice: cents(l.sku.price),
            detailUrl: `/${slug(l.sku.name)}/p`,
          })),
          clientProfileData: profile,
          shippingData: {
            address,
            logisticsInfo: lines.map((_, i) => ({
              itemIndex: i,
              selectedSla: sla.id,
              price: i === 0 ? shippingTotal : 0,
              shippingEstimate: sla.shippingEstimate,
            })),
          },
          paymentData: {
            transactions: [
              {
                isActive: true,
                transactionId,
                merchantName: ACCOUNT.toUpperCase(),
                payments: [
                  {
                    id: newId(),
                    paymentSystem: PIX,
                    paymentSystemName: 'Pix',
                    group: 'instantPayment',
                    value,
                    referenceValue: value,
                    installments: 1,
                    status: 'pending',
                  },
                ],
              },
            ],
          },
          salesChannel: '1',
          creationDate: now,
          lastChange: now,
        };
        for (const l of lines) ctx.state.stock.set(l.sku.itemId, (ctx.state.stock.get(l.sku.itemId) ?? 0) - l.quantity);
        ctx.state.orders.set(orderId, order);
        ctx.created('orders');
        return {
          status: 201,
          body: {
            orderForm: null,
            transactionData: {
              merchantTransactions: [
                {
                  id: ACCOUNT.toUpperCase(),
                  transactionId,
                  merchantName: ACCOUNT.toUpperCase(),
                  payments: order.paymentData.transactions[0]!.payments,
                },
              ],
              receiverUri: `${ctx.baseUrl}/split/${group}/payments`,
              gatewayCallbackTemplatePath: `/checkout/gatewayCallback/${group}/{messageCode}`,
            },
            orders: [order],
          },
        };
      },
    },
    {
      name: 'get_order',
      method: 'GET',
      path: '/api/oms/pvt/orders/:orderId',
      handle(ctx) {
        const o = getOrder(ctx);
        return 'orderId' in o ? { status: 200, body: o } : o;
      },
    },
    {
      name: 'list_orders',
      method: 'GET',
      path: '/api/oms/pvt/orders',
      handle(ctx) {
        const status = ctx.query.get('f_status');
        const perPage = Math.min(100, Math.max(1, Number(ctx.query.get('per_page') ?? 15) || 15));
        const page = Math.max(1, Number(ctx.query.get('page') ?? 1) || 1);
        const all = [...ctx.state.orders.values()]
          .filter((o) => !status || status.split(',').includes(o.status))
          .reverse();
        const list = all.slice((page - 1) * perPage, page * perPage).map((o) => ({
          orderId: o.orderId,
          creationDate: o.creationDate,
          clientName: [o.clientProfileData.firstName, o.clientProfileData.lastName].filter(Boolean).join(' ') || null,
          totalValue: o.value,
          status: o.status,
          statusDescription: o.statusDescription,
          paymentNames: 'Pix',
        }));
        return {
          status: 200,
          body: {
            list,
            paging: { total: all.length, pages: Math.ceil(all.length / perPage), currentPage: page, perPage },
          },
        };
      },
    },
    {
      name: 'cancel_order',
      method: 'POST',
      path: '/api/oms/pvt/orders/:orderId/cancel',
      handle(ctx) {
        const o = getOrder(ctx);
        if (!('orderId' in o)) return o;
        if (o.status === 'canceled') return err(400, 'OMS010', 'O pedido já está cancelado.');
        o.status = 'canceled';
        o.statusDescription = 'Cancelado';
        o.lastChange = new Date().toISOString();
        for (const item of o.items) ctx.state.stock.set(item.id, (ctx.state.stock.get(item.id) ?? 0) + item.quantity);
        return { status: 200, body: { date: o.lastChange, orderId: o.orderId, receipt: newId().toLowerCase() } };
      },
    },
  ],
};
