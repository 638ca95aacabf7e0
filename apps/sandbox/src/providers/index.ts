import type { ProviderConfig } from '../config';
import { asaas } from './asaas';
import { blnk } from './blnk';
import { circle } from './circle';
import { culqi } from './culqi';
import { echo } from './echo';
import { envia } from './envia';
import { facturapi } from './facturapi';
import { idwall } from './idwall';
import { inter } from './inter';
import { melhorenvio } from './melhorenvio';
import { mercadopago } from './mercadopago';
import { nfse } from './nfse';
import { openpay } from './openpay';
import { pomelo } from './pomelo';
import { transbank } from './transbank';
import type { AnyProviderModel } from './types';
import { vtex } from './vtex';
import { whatsapp } from './whatsapp';
import { wise } from './wise';
import { wompi } from './wompi';
import { zenvia } from './zenvia';

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
    case 'openpay':
      return openpay;
    case 'wise':
      return wise;
    case 'wompi':
      return wompi;
    case 'transbank':
      return transbank;
    case 'culqi':
      return culqi;
    case 'facturapi':
      return facturapi;
    case 'envia':
      return envia;
    case 'zenvia':
      return zenvia;
    case 'echo':
      return echo(config.auth.type === 'api_key' && config.auth.in === 'query' ? [config.auth.name] : []);
  }
}
