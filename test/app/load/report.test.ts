import { describe, expect, it } from 'vitest';
import { formatLoadReport, percentile, summarize } from '../../../src/app/load/report.ts';

describe('load report', () => {
  it('takes nearest-rank percentiles', () => {
    const values = Array.from({ length: 10 }, (_, i) => i + 1);
    expect(percentile(values, 50)).toBe(5);
    expect(percentile(values, 90)).toBe(9);
    expect(percentile(values, 99)).toBe(10);
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([], 50)).toBe(0);
    expect(summarize([3, 1, 2])).toEqual({ p50: 2, p90: 3, p99: 3, max: 3 });
  });

  it('prints a fixed-width table', () => {
    const table = formatLoadReport({
      target: '10.96.40.12:80',
      request: 'GET /sante',
      loop: 'open 200/s',
      durationMs: 2000,
      elapsedMs: 1999.5,
      started: 400,
      completed: 398,
      succeeded: 300,
      failed: 98,
      inFlight: 2,
      connections: 300,
      statuses: { 503: 10, 200: 300 },
      failures: { EADDRNOTAVAIL: 88, 'http 503': 10 },
      latencyMs: { p50: 1.5, p90: 2, p99: 12.25, max: 40 },
    });
    expect(table).toBe(
      [
        'target        10.96.40.12:80 GET /sante',
        'loop          open 200/s for 2000 ms (elapsed 1999.500 ms)',
        'started       400',
        'completed     398',
        'succeeded     300',
        'failed        98',
        'in flight     2',
        'connections   300',
        'statuses      200=300 503=10',
        'failures      EADDRNOTAVAIL=88 http 503=10',
        'latency ms    p50 1.500  p90 2.000  p99 12.250  max 40.000',
        '',
      ].join('\n'),
    );
  });
});
