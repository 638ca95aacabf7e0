import { randomBytes, randomUUID } from 'node:crypto';
import { isObject, round2, type ProviderModel, type Reply } from './types';

/**
 * Facturapi v2 (Mexico) CFDI 4.0 invoices: `POST /v2/invoices` stamps an
 * income invoice for a customer (legal name, RFC, fiscal regime, postal
 * code) and its items (SAT product key, price with VAT included); the answer
 * carries the SAT folio (`uuid`), series and number, and the document is
 * at `/v2/invoices/{id}/pdf`. Errors are `{message, path, status}`.
 * Facturapi reads no idempotency header; a retried creation stamps a
 * second document, which moves no money and can be cancelled.
 */

interface Invoice {
  id: string;
  created_at: string;
  livemode: false;
  status: 'valid' | 'canceled';
  cancellation_status: 'none';
  verification_url: string;
  type: 'I';
  customer: Record<string, unknown>;
  total: number;
  uuid: string;
  folio_number: number;
  series: string;
  payment_form: string;
  use: string;
  items: unknown[];
}

interface FacturapiState {
  invoices: Map<string, Invoice>;
  folio: number;
}

/** RFC of a company (12) or a person (13), including the generic public RFC. */
const RFC = /^([A-ZÑ&]{3,4})\d{6}([A-Z\d]{3})$/;
const PAYMENT_FORMS = ['01', '02', '03', '04', '28', '99'];

function err(status: number, message: string, path?: string): Reply {
  return { status, body: { message, ...(path ? { path } : {}), status } };
}

export const facturapi: ProviderModel<FacturapiState> = {
  idempotencyHeader: 'x-sandbox-idempotency-key',
  conflictStatus: 409,
  error: (status, _code, message) => err(status, message),
  unauthorized: (status) => err(status, status === 401 ? 'Invalid API key' : 'This API key cannot perform this action'),
  createState: () => ({ invoices: new Map(), folio: 1 }),
  routes: [
    {
      name: 'create_invoice',
      method: 'POST',
      path: '/v2/invoices',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        const c = isObject(b.customer) ? b.customer : undefined;
        if (!c) return err(400, 'customer is required', 'customer');
        if (typeof c.legal_name !== 'string' || !c.legal_name)
          return err(400, 'customer.legal_name is required', 'customer.legal_name');
        if (typeof c.tax_id !== 'string' || !RFC.test(c.tax_id.toUpperCase()))
          return err(400, 'El RFC del receptor no es válido (customer.tax_id).', 'customer.tax_id');
        if (typeof c.tax_system !== 'string' || !/^\d{3}$/.test(c.tax_system))
          return err(400, 'customer.tax_system must be a SAT fiscal regime key', 'customer.tax_system');
        const zip = isObject(c.address) ? c.address.zip : undefined;
        if (typeof zip !== 'string' || !/^\d{5}$/.test(zip))
          return err(400, 'customer.address.zip must be a 5-digit postal code', 'customer.address.zip');
        if (!Array.isArray(b.items) || b.items.length === 0)
          return err(400, 'items must have at least one item', 'items');
        let total = 0;
        for (const [i, item] of b.items.entries()) {
          const product = isObject(item) && isObject(item.product) ? item.product : undefined;
          const quantity = isObject(item) && typeof item.quantity === 'number' ? item.quantity : 1;
          if (!product || typeof product.description !== 'string' || typeof product.price !== 'number')
            return err(400, `items[${i}].product needs a description and a price`, `items.${i}.product`);
          if (typeof product.product_key !== 'string' || !/^\d{8}$/.test(product.product_key))
            return err(
              400,
              `items[${i}].product.product_key must be an 8-digit SAT key`,
              `items.${i}.product.product_key`,
            );
          total += product.price * quantity;
        }
        if (typeof b.payment_form !== 'string' || !PAYMENT_FORMS.includes(b.payment_form))
          return err(400, 'payment_form is not a valid SAT key', 'payment_form');
        const id = randomBytes(12).toString('hex');
        const inv: Invoice = {
          id,
          created_at: new Date().toISOString(),
          livemode: false,
          status: 'valid',
          cancellation_status: 'none',
          verification_url: `https://verificacfdi.facturaelectronica.sat.gob.mx/default.aspx?id=${id}`,
          type: 'I',
          customer: {
            legal_name: c.legal_name,
            tax_id: (c.tax_id as string).toUpperCase(),
            tax_system: c.tax_system,
            address: { zip },
          },
          total: round2(total),
          uuid: randomUUID().toUpperCase(),
          folio_number: ctx.state.folio++,
          series: 'A',
          payment_form: b.payment_form,
          use: typeof b.use === 'string' ? b.use : 'G03',
          items: b.items,
        };
        ctx.state.invoices.set(id, inv);
        ctx.created('invoices');
        return { status: 200, body: inv };
      },
    },
  ],
};
