import { CatalogUrlError, fetchCatalogText, isPublicAddress, privateAddressAllowed } from './url';

describe('address policy', () => {
  it.each([
    // Loopback in every IPv4 encoding ipaddr.js and URL parsers accept.
    ['127.0.0.1'],
    ['127.1'],
    ['127.0.1'],
    ['2130706433'],
    ['0x7f000001'],
    ['0x7f.1'],
    ['0177.0.0.1'],
    ['017700000001'],
    // Other non-global IPv4 ranges.
    ['0.0.0.0'],
    ['0.1.2.3'],
    ['10.0.0.5'],
    ['172.16.3.4'],
    ['172.31.255.255'],
    ['192.168.1.1'],
    ['169.254.169.254'],
    ['100.64.0.1'],
    ['100.127.255.254'],
    ['192.0.0.170'],
    ['192.0.2.1'],
    ['198.18.0.1'],
    ['198.19.255.255'],
    ['198.51.100.7'],
    ['203.0.113.9'],
    ['224.0.0.1'],
    ['239.255.255.250'],
    ['240.0.0.1'],
    ['255.255.255.255'],
    // IPv6 special ranges.
    ['::'],
    ['::1'],
    ['[::1]'],
    ['fc00::1'],
    ['fd12:3456::1'],
    ['fe80::1'],
    ['fe80::1%eth0'],
    ['fec0::1'],
    ['ff02::1'],
    ['100::1'],
    ['2001:db8::1'],
    ['2001:2::1'],
    // IPv4-compatible IPv6: the deprecated form that reaches the IPv4 address inside.
    ['::127.0.0.1'],
    ['[::127.0.0.1]'],
    ['::7f00:1'],
    ['::a9fe:a9fe'],
    // IPv4-mapped and translated forms of private addresses.
    ['::ffff:127.0.0.1'],
    ['::ffff:7f00:1'],
    ['::ffff:10.0.0.1'],
    ['::ffff:a9fe:a9fe'],
    ['::ffff:0:10.0.0.1'],
    ['64:ff9b::a9fe:a9fe'],
    ['64:ff9b:1::10.0.0.1'],
    ['2002:7f00:1::'],
    ['2002:a9fe:a9fe::1'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    // Outside 2000::/3, which holds every global unicast address.
    ['4000::1'],
    ['::ffff:ffff:ffff'],
    // Not an address at all.
    ['localhost'],
    ['08.8.8.8'],
    [''],
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  // ipaddr.js reads the dotted `::8.8.8.8` as IPv4-mapped, so like every
  // mapped form it is judged by the IPv4 address inside.
  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['93.184.216.34'],
    ['2001:4860:4860::8888'],
    ['[2606:4700:4700::1111]'],
    ['::ffff:8.8.8.8'],
    ['::ffff:808:808'],
    ['::8.8.8.8'],
  ])('accepts %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it.each([
    'http://127.1/catalog.json',
    'http://0x7f.1/catalog.json',
    'http://2130706433/catalog.json',
    'http://017700000001/catalog.json',
    'http://[::127.0.0.1]/catalog.json',
    'http://[::a9fe:a9fe]/latest/meta-data',
    'http://[::ffff:169.254.169.254]/latest/meta-data',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://169.254.169.254/latest/meta-data',
  ])('refuses to fetch %s before connecting', async (url) => {
    await expect(fetchCatalogText(url, { timeoutMs: 1000 })).rejects.toThrow(CatalogUrlError);
    await expect(fetchCatalogText(url, { timeoutMs: 1000 })).rejects.toThrow(/not a public address/);
  });

  it('refuses zone ids and other schemes as URLs', async () => {
    await expect(fetchCatalogText('http://[fe80::1%25eth0]/x.json')).rejects.toThrow(/not a URL/);
    await expect(fetchCatalogText('file:///etc/passwd')).rejects.toThrow(/only http and https/);
  });

  it.each([
    [undefined, 'sandbox', false],
    ['', 'sandbox', false],
    ['sandbox', 'sandbox', true],
    [' sandbox , acme-local ', 'acme-local', true],
    ['sandbox,acme-local', 'acme', false],
    ['sandbox-2', 'sandbox', false],
  ])('ROTA_PRIVATE_PROVIDERS=%j lets %s reach private addresses: %s', (list, provider, expected) => {
    expect(privateAddressAllowed(provider, { ROTA_PRIVATE_PROVIDERS: list })).toBe(expected);
  });

  it("never exempts a project's own provider, even under a listed id", () => {
    expect(privateAddressAllowed('sandbox', { ROTA_PRIVATE_PROVIDERS: 'sandbox' }, '')).toBe(true);
    expect(privateAddressAllowed('sandbox', { ROTA_PRIVATE_PROVIDERS: 'sandbox' }, 'proj_x')).toBe(false);
  });
});
