import type { LookupAddress } from 'node:dns';
import { AddressRefusedError, checkedLookup, isPublicAddress, literalAddressRefused, type Resolver } from './address';

describe('isPublicAddress', () => {
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts the public address %s', (a) => {
    expect(isPublicAddress(a)).toBe(true);
  });

  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '255.255.255.255',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:169.254.169.254',
    '::7f00:1',
    '::a00:1',
    '64:ff9b::a00:1',
    '2002:7f00:1::',
    '2001:db8::1',
    'not-an-address',
  ])('refuses %s', (a) => {
    expect(isPublicAddress(a)).toBe(false);
  });
});

describe('literalAddressRefused', () => {
  it('judges IP literals, bracketed IPv6 included, and lets names through to the lookup', () => {
    expect(literalAddressRefused('127.0.0.1', false)).toBeInstanceOf(AddressRefusedError);
    expect(literalAddressRefused('[::1]', false)).toBeInstanceOf(AddressRefusedError);
    expect(literalAddressRefused('127.0.0.1', true)).toBeUndefined();
    expect(literalAddressRefused('8.8.8.8', false)).toBeUndefined();
    expect(literalAddressRefused('api.example.com', false)).toBeUndefined();
  });

  it('sees through alternative IPv4 spellings, which the URL parser normalises', () => {
    for (const host of ['http://2130706433/', 'http://0x7f.1/', 'http://127.1/', 'http://[::ffff:7f00:1]/']) {
      expect(literalAddressRefused(new URL(host).hostname, false)).toBeInstanceOf(AddressRefusedError);
    }
  });
});

describe('checkedLookup', () => {
  const fakeDns =
    (answers: Record<string, LookupAddress[]>): Resolver =>
    (host, _opts, cb) =>
      answers[host] ? cb(null, answers[host]) : cb(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);

  const run = (lookup: ReturnType<typeof checkedLookup>, host: string, all: boolean) =>
    new Promise<{ err: unknown; result: unknown }>((resolve) =>
      lookup(
        host,
        { all } as never,
        ((err: unknown, address: unknown, family?: unknown) =>
          resolve({ err, result: all ? address : { address, family } })) as never,
      ),
    );

  const dns = fakeDns({
    'public.test': [{ address: '93.184.216.34', family: 4 }],
    'mixed.test': [
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.5', family: 4 },
    ],
    'mapped.test': [{ address: '::ffff:127.0.0.1', family: 6 }],
  });

  it('hands the socket exactly the checked addresses, in both lookup shapes', async () => {
    expect((await run(checkedLookup(false, dns), 'public.test', true)).result).toEqual([
      { address: '93.184.216.34', family: 4 },
    ]);
    expect((await run(checkedLookup(false, dns), 'public.test', false)).result).toEqual({
      address: '93.184.216.34',
      family: 4,
    });
  });

  it('refuses a host when any of its addresses is not public, including IPv4-mapped ones', async () => {
    for (const host of ['mixed.test', 'mapped.test']) {
      const { err } = await run(checkedLookup(false, dns), host, true);
      expect(err).toBeInstanceOf(AddressRefusedError);
      expect((err as AddressRefusedError).code).toBe('ROTA_ADDRESS_REFUSED');
    }
  });

  it('lets an allowed provider reach private addresses, and passes DNS errors through', async () => {
    expect((await run(checkedLookup(true, dns), 'mixed.test', true)).err).toBeNull();
    expect(((await run(checkedLookup(false, dns), 'nowhere.test', true)).err as { code: string }).code).toBe(
      'ENOTFOUND',
    );
  });
});
