import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Raised inside the connection attempt when a host resolves to an address Rota must not call. */
export class AddressRefusedError extends Error {
  readonly code = 'ROTA_ADDRESS_REFUSED';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, which is not a public address`);
    this.name = 'AddressRefusedError';
  }
}

// Only 2000::/3 is allocated for global unicast. Everything else that
// ipaddr.js leaves as plain `unicast` (the deprecated IPv4-compatible
// `::a.b.c.d`, so `[::127.0.0.1]`, and unassigned space) reaches nothing
// public, and some stacks route it to the IPv4 address inside.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * True only for ordinary public unicast addresses, in any encoding ipaddr.js
 * parses: dotted, short (`127.1`), decimal, octal and hex IPv4, bracketed
 * IPv6, zone ids. IPv4-mapped IPv6 is judged by the IPv4 address inside.
 * Every special range is refused (private, loopback, link-local with the
 * cloud metadata address, CGNAT, unique-local, documentation, multicast),
 * including those that embed an IPv4 address (6to4, Teredo, NAT64), since
 * they can lead back inside. The one classifier of the project: catalog
 * imports and provider calls both use it.
 */
export function isPublicAddress(address: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  return v6.range() === 'unicast' && v6.match(GLOBAL_UNICAST_V6);
}

export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * The `lookup` a provider's connections use. It resolves the host, refuses
 * the connection unless every address is public (or the provider may reach
 * private ones), and hands the socket exactly the addresses it checked. The
 * check and the connection use one resolution, so a DNS answer that changes
 * between the two (rebinding) cannot slip a private address in; the socket
 * still connects by host name, so TLS SNI and the Host header are unchanged.
 */
export function checkedLookup(allowPrivate: boolean, resolve: Resolver = dnsLookup as Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { family: options.family, hints: options.hints, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      if (!addresses.length)
        return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if (!allowPrivate) {
        const refused = addresses.find((a) => !isPublicAddress(a.address));
        if (refused) return callback(new AddressRefusedError(hostname, refused.address), '', 0);
      }
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Hosts written as IP literals never go through `lookup`; they are judged here instead. */
export function literalAddressRefused(hostname: string, allowPrivate: boolean): AddressRefusedError | undefined {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || isIP(bare) === 0 || isPublicAddress(bare)) return undefined;
  return new AddressRefusedError(hostname, bare);
}
