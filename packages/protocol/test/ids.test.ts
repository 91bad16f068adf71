import { afterEach, describe, expect, it, vi } from 'vitest';
import { isoNow, isoNowBySecond } from '../src/ids.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('isoNow and isoNowBySecond', () => {
  it('stamps exactly what toISOString writes, within a second, across seconds and back in time', () => {
    vi.useFakeTimers();
    const start = Date.UTC(2026, 11, 6, 15, 59, 59, 990);
    // Forward a millisecond at a time across a minute, an hour and a day boundary...
    const times: number[] = [];
    for (let ms = start; ms < start + 3_000; ms += 1) times.push(ms);
    // ...jumps within one second, to an earlier second, before 1970 and past 9999.
    times.push(start + 5, start - 1, start - 999, start + 1_000_000, -1_500, -1_200, -900, 0, 999);
    times.push(Date.UTC(10_000, 0, 1, 0, 0, 0, 5), Date.UTC(10_000, 0, 1, 0, 0, 0, 6), start + 7);
    for (const at of times) {
      vi.setSystemTime(at);
      expect(isoNowBySecond()).toBe(new Date(at).toISOString());
      expect(isoNow()).toBe(new Date(at).toISOString());
    }
  });
});
