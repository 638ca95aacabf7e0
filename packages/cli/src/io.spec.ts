import { withProgress, type CliIo } from './io';

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
