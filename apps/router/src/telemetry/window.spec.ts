import { BUCKETS, bucketOf, LATENCY_BOUNDS_MS, medianOf, statsFromHash } from './window';

describe('telemetry window', () => {
  it('puts latencies in the right bucket', () => {
    expect(bucketOf(0)).toBe(0);
    expect(bucketOf(5)).toBe(0);
    expect(bucketOf(6)).toBe(1);
    expect(bucketOf(999_999)).toBe(LATENCY_BOUNDS_MS.length);
  });

  it('interpolates the median inside its bucket', () => {
    const counts = new Array<number>(BUCKETS).fill(0);
    expect(medianOf(counts)).toBeNull();
    counts[bucketOf(250)] = 10; // 200..300
    expect(medianOf(counts)).toBe(250);
    counts[bucketOf(40)] = 30; // 30..50 holds the middle now
    expect(medianOf(counts)).toBeGreaterThanOrEqual(30);
    expect(medianOf(counts)).toBeLessThanOrEqual(50);
  });

  it('reads only the slots of the last 24 hours, oldest first', () => {
    const now = 500_000;
    const hash: Record<string, string> = {
      // current hour
      [`h:${now % 24}`]: String(now),
      [`a:${now % 24}`]: '3',
      [`s:${now % 24}`]: '2',
      [`t:${now % 24}`]: '300',
      [`b:${now % 24}:${bucketOf(100)}`]: '3',
      // 23 hours ago: still in the window
      [`h:${(now - 23) % 24}`]: String(now - 23),
      [`a:${(now - 23) % 24}`]: '1',
      [`s:${(now - 23) % 24}`]: '1',
      [`b:${(now - 23) % 24}:${bucketOf(10)}`]: '1',
      // a slot still holding an hour from yesterday: ignored
      [`h:${(now - 5) % 24}`]: String(now - 29),
      [`a:${(now - 5) % 24}`]: '100',
      err: 'timeout',
      err_at: String(now * 3_600_000),
    };
    const s = statsFromHash(hash, now);
    expect(s.attempts).toBe(4);
    expect(s.successes).toBe(3);
    expect(s.attempts_by_hour[23]).toBe(3);
    expect(s.attempts_by_hour[0]).toBe(1);
    expect(s.attempts_by_hour.reduce((a, b) => a + b, 0)).toBe(4);
    // 100 ms falls in the 75..100 bucket; the median is interpolated inside it.
    expect(s.p50_by_hour[23]).toBeGreaterThan(75);
    expect(s.p50_by_hour[23]).toBeLessThanOrEqual(100);
    expect(s.p50_by_hour[5]).toBeNull();
    expect(s.last_error_code).toBe('timeout');
    expect(statsFromHash({ ...hash, err_at: String((now - 30) * 3_600_000) }, now).last_error_code).toBeNull();
  });
});
