import { CliError, parseTtl, withProgress, type CliIo } from './io';

function capture(isTTY: boolean) {
  const err: string[] = [];
  const io: CliIo = { stdout: () => undefined, stderr: (t) => void err.push(t), env: {}, isTTY };
  return { io, err };
}

describe('withProgress', () => {
  it('draws a spinner line on a terminal and erases it when the work ends', async () => {
    const { io, err } = capture(true);
    await expect(withProgress(io, 'importing x.json', Promise.resolve(42))).resolves.toBe(42);
    expect(err[0]).toMatch(/^\r[|/\\-] importing x\.json \d+s$/);
    expect(err.at(-1)).toMatch(/^\r +\r$/);
    expect(err.join('')).not.toContain('\n');
  });

  it('passes the error through and still erases the line', async () => {
    const { io, err } = capture(true);
    await expect(withProgress(io, 'reading', Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(err.at(-1)).toMatch(/^\r +\r$/);
  });

  it('writes nothing when the output is not a terminal', async () => {
    const { io, err } = capture(false);
    await expect(withProgress(io, 'importing', Promise.resolve('ok'))).resolves.toBe('ok');
    expect(err).toEqual([]);
  });
});

describe('parseTtl', () => {
  it('reads seconds, minutes, hours and days, up to the maximum', () => {
    expect(parseTtl('90', 3600)).toBe(90);
    expect(parseTtl('90s', 3600)).toBe(90);
    expect(parseTtl('15m', 3600)).toBe(900);
    expect(parseTtl(' 1h ', 3600)).toBe(3600);
    expect(parseTtl('30d', 30 * 86_400)).toBe(30 * 86_400);
  });

  it('refuses anything else with a CliError naming --ttl', () => {
    for (const bad of ['', 'soon', '1w', '1.5h', '-1h', '0', '0s', '2h'])
      expect(() => parseTtl(bad, 3600)).toThrow(CliError);
    expect(() => parseTtl('soon', 3600)).toThrow(/^--ttl takes a number of seconds/);
    expect(() => parseTtl('2h', 3600)).toThrow(/^--ttl must be between 1 s and/);
  });
});
