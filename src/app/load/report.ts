// A load run's report: counts by outcome, latency percentiles (nearest rank) in virtual milliseconds, as a plain
// JSON-ready object and as a fixed-width table. No histograms, no per-second series.

export interface LatencySummary {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

export interface LoadReport {
  readonly target: string;
  /** `GET /path` or `connect`. */
  readonly request: string;
  /** `open 200/s` or `closed 8`. */
  readonly loop: string;
  readonly durationMs: number;
  /** Virtual time from the start to the last completion. */
  readonly elapsedMs: number;
  readonly started: number;
  readonly completed: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly inFlight: number;
  /** TCP connections opened (fewer than requests with a keep-alive pool). */
  readonly connections: number;
  /** Complete HTTP responses by status code. */
  readonly statuses: Readonly<Record<string, number>>;
  /** Failures by errno (`EADDRNOTAVAIL`, `ECONNREFUSED`), curl exit code (`curl 28`) or HTTP status (`http 503`). */
  readonly failures: Readonly<Record<string, number>>;
  /** Latency of the successful requests, in milliseconds (all 0 when none succeeded). */
  readonly latencyMs: LatencySummary;
}

/** The nearest-rank percentile of sorted values (0 for none). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}

export function summarize(latenciesMs: readonly number[]): LatencySummary {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length === 0 ? 0 : sorted[sorted.length - 1]!,
  };
}

function counts(record: Readonly<Record<string, number>>): string {
  const entries = Object.entries(record).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return entries.length === 0 ? '-' : entries.map(([key, n]) => `${key}=${n}`).join(' ');
}

/** The report as a two-column table, labels padded to 14 characters. */
export function formatLoadReport(report: LoadReport): string {
  const ms = (value: number) => value.toFixed(3);
  const rows: [string, string][] = [
    ['target', `${report.target} ${report.request}`],
    ['loop', `${report.loop} for ${report.durationMs} ms (elapsed ${ms(report.elapsedMs)} ms)`],
    ['started', String(report.started)],
    ['completed', String(report.completed)],
    ['succeeded', String(report.succeeded)],
    ['failed', String(report.failed)],
    ['in flight', String(report.inFlight)],
    ['connections', String(report.connections)],
    ['statuses', counts(report.statuses)],
    ['failures', counts(report.failures)],
    [
      'latency ms',
      `p50 ${ms(report.latencyMs.p50)}  p90 ${ms(report.latencyMs.p90)}  p99 ${ms(report.latencyMs.p99)}  max ${ms(report.latencyMs.max)}`,
    ],
  ];
  return `${rows.map(([label, value]) => `${label.padEnd(14)}${value}`).join('\n')}\n`;
}
