import { randomBytes } from 'node:crypto';

function field(id: string, value: string): string {
  return `${id}${String(value.length).padStart(2, '0')}${value}`;
}

/** CRC-16/CCITT-FALSE, the checksum that closes every BR Code. */
function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/**
 * A well-formed Pix "copia e cola" payload (EMV BR Code with a valid CRC)
 * for a dynamic charge: it parses like a real one, but the key and URL are
 * sandbox values, so no bank would pay it.
 */
export function pixPayload(amount: number, merchant = 'ROTA SANDBOX', city = 'SAO PAULO'): string {
  const txid = randomBytes(12).toString('hex');
  const account = field('00', 'br.gov.bcb.pix') + field('25', `pix.sandbox.invalid/qr/v2/${txid}`);
  const body =
    field('00', '01') +
    field('01', '12') +
    field('26', account) +
    field('52', '0000') +
    field('53', '986') +
    field('54', amount.toFixed(2)) +
    field('58', 'BR') +
    field('59', merchant.slice(0, 25)) +
    field('60', city.slice(0, 15)) +
    field('62', field('05', '***')) +
    '6304';
  return body + crc16(body);
}

/**
 * A static Pix payload: the receiving key itself (not a URL) in field 26,
 * the amount only when it is fixed, so one code can be paid many times.
 */
export function staticPixPayload(
  key: string,
  amount?: number,
  description?: string,
  merchant = 'ROTA SANDBOX',
  city = 'SAO PAULO',
): string {
  const info = description ? field('02', description.slice(0, 40)) : '';
  const account = field('00', 'br.gov.bcb.pix') + field('01', key) + info;
  const body =
    field('00', '01') +
    field('26', account) +
    field('52', '0000') +
    field('53', '986') +
    (amount !== undefined ? field('54', amount.toFixed(2)) : '') +
    field('58', 'BR') +
    field('59', merchant.slice(0, 25)) +
    field('60', city.slice(0, 15)) +
    field('62', field('05', '***')) +
    '6304';
  return body + crc16(body);
}

/** A 1×1 PNG: the shape of a QR image field without drawing one. */
export const PLACEHOLDER_PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
