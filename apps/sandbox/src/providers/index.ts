import type { ProviderConfig } from '../config';
import { asaas } from './asaas';
import { blnk } from './blnk';
import { circle } from './circle';
import { echo } from './echo';
import { idwall } from './idwall';
import { inter } from './inter';
import { melhorenvio } from './melhorenvio';
import { mercadopago } from './mercadopago';
import { nfse } from './nfse';
import { pomelo } from './pomelo';
import type { AnyProviderModel } from './types';
import { vtex } from './vtex';
import { whatsapp } from './whatsapp';

/** The model a configured prefix speaks. */
export function modelFor(config: ProviderConfig): AnyProviderModel {
  switch (config.kind) {
    case 'asaas':
      return asaas;
    case 'mercadopago':
      return mercadopago;
    case 'nfse':
      return nfse;
    case 'whatsapp':
      return whatsapp(config.phone_number_ids ?? ['100000000000001']);
    case 'melhorenvio':
      return melhorenvio;
    case 'vtex':
      return vtex;
    case 'circle':
      return circle;
    case 'idwall':
      return idwall;
    case 'blnk':
      return blnk;
    case 'pomelo':
      return pomelo;
    case 'inter':
      return inter;
    case 'echo':
      return echo(config.auth.type === 'api_key' && config.auth.in === 'query' ? [config.auth.name] : []);
  }
}
