import { decodeCursor, encodeCursor } from './logs.service';

describe('log cursors', () => {
  it('round-trips a position and refuses anything it did not give out', () => {
    const c = { at: '2026-12-04T10:00:00.123Z', id: 'tc_9' };
    expect(decodeCursor(encodeCursor(c))).toEqual(c);
    for (const raw of [
      'bm9wZQ',
      Buffer.from('["not a date","tc_1"]').toString('base64url'),
      Buffer.from('[1,2]').toString('base64url'),
      '%%%',
    ]) {
      expect(() => decodeCursor(raw)).toThrow(expect.objectContaining({ code: 'invalid_query' }));
    }
  });
});
