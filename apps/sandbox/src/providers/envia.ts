import { isObject, round2, type ProviderModel, type Reply } from './types';

/**
 * Envia.com shipping API: `POST /ship/rate/` prices one carrier's services
 * for a shipment (origin and destination addresses with country and postal
 * code, packages with weight in kilograms and dimensions in centimetres).
 * Answers are `{meta: 'rate', data: [...]}` with prices in the origin
 * country's currency; errors are `{meta: 'error', error: {code, description, message}}`.
 */

/** Carriers the sandbox prices, per origin country, with the currency of their prices. */
const CARRIERS: Readonly<Record<string, { currency: string; carriers: string[] }>> = {
  MX: { currency: 'MXN', carriers: ['estafeta', 'fedex', 'dhl', 'redpack'] },
  BR: { currency: 'BRL', carriers: ['correios', 'jadlog', 'loggi'] },
  CO: { currency: 'COP', carriers: ['servientrega', 'coordinadora', 'deprisa'] },
  CL: { currency: 'CLP', carriers: ['chilexpress', 'starken', 'blueexpress'] },
  AR: { currency: 'ARS', carriers: ['andreani', 'oca', 'correoargentino'] },
  PE: { currency: 'PEN', carriers: ['olva', 'shalom'] },
};

/** A per-kilogram base price in each currency, so prices have realistic sizes. */
const PER_KG: Readonly<Record<string, number>> = { MXN: 45, BRL: 9, COP: 9_000, CLP: 2_200, ARS: 2_500, PEN: 8 };

function err(status: number, code: number, message: string): Reply {
  return { status, body: { meta: 'error', error: { code, description: message, message } } };
}

function address(v: unknown): { country: string; postalCode: string } | null {
  if (!isObject(v) || typeof v.country !== 'string' || typeof v.postalCode !== 'string' || !v.postalCode) return null;
  return { country: v.country.toUpperCase(), postalCode: v.postalCode };
}

export const envia: ProviderModel<Record<string, never>> = {
  idempotencyHeader: 'x-sandbox-idempotency-key',
  conflictStatus: 409,
  error: (status, _code, message) => err(status, status, message),
  unauthorized: (status) => err(status, status, 'Invalid or expired token.'),
  createState: () => ({}),
  routes: [
    {
      name: 'quote_rates',
      method: 'POST',
      path: '/ship/rate',
      handle(ctx) {
        const b = isObject(ctx.body) ? ctx.body : {};
        const origin = address(b.origin);
        const destination = address(b.destination);
        if (!origin) return err(400, 1125, 'origin.country and origin.postalCode are required.');
        if (!destination) return err(400, 1125, 'destination.country and destination.postalCode are required.');
        const table = CARRIERS[origin.country];
        if (!table) return err(400, 1105, `Shipments from ${origin.country} are not available.`);
        const shipment = isObject(b.shipment) ? b.shipment : {};
        if (typeof shipment.carrier !== 'string' || !table.carriers.includes(shipment.carrier))
          return err(
            400,
            1105,
            `The carrier is not available in ${origin.country}; use one of ${table.carriers.join(', ')}.`,
          );
        if (!Array.isArray(b.packages) || b.packages.length === 0)
          return err(400, 1125, 'packages must have at least one package.');
        let kg = 0;
        for (const p of b.packages) {
          if (!isObject(p) || typeof p.weight !== 'number' || !(p.weight > 0))
            return err(400, 1125, 'Each package needs a weight in kilograms.');
          kg += p.weight;
        }
        const per = PER_KG[table.currency]!;
        const international = origin.country !== destination.country;
        const base = per * Math.max(1, kg) * (international ? 4 : 1);
        const services = [
          { service: 'ground', serviceDescription: 'Terrestre', days: international ? 8 : 4, factor: 1 },
          { service: 'express', serviceDescription: 'Día siguiente', days: international ? 4 : 1, factor: 1.8 },
        ];
        return {
          status: 200,
          body: {
            meta: 'rate',
            data: services.map((s) => ({
              carrier: shipment.carrier,
              carrierDescription: String(shipment.carrier).toUpperCase(),
              service: s.service,
              serviceDescription: s.serviceDescription,
              deliveryEstimate: `${s.days} días`,
              deliveryDate: { dateDifference: s.days },
              totalPrice: round2(base * s.factor),
              currency: table.currency,
            })),
          },
        };
      },
    },
  ],
};
