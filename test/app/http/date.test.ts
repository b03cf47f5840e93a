import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clfDate, httpDate } from '../../../src/app/http/date.ts';

describe('wall-clock texts from virtual time', () => {
  it('writes the HTTP Date field as JavaScript’s toUTCString does (IMF-fixdate)', () => {
    expect(httpDate(0)).toBe('Thu, 01 Jan 1970 00:00:00 GMT');
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (ms) => {
        expect(httpDate(ms)).toBe(new Date(ms).toUTCString());
      }),
    );
  });

  it('writes the Common Log Format time', () => {
    expect(clfDate(Date.UTC(2026, 11, 1, 13, 30, 5))).toBe('01/Dec/2026:13:30:05 +0000');
    expect(clfDate(Date.UTC(2024, 1, 29, 23, 59, 59, 999))).toBe('29/Feb/2024:23:59:59 +0000');
  });
});
