// A suite's results as the human table `npm run bench` and `packetlab bench` print: one row per case (ns/op, ops/s, ±rme, samples, the baseline and the ratio), then the metrics, then each goal met or missed.

import type { SuiteResult } from './suite.ts';

function rate(hz: number): string {
  if (hz >= 1e6) return `${(hz / 1e6).toFixed(2)} M/s`;
  if (hz >= 1e3) return `${(hz / 1e3).toFixed(1)} k/s`;
  return `${hz.toFixed(1)} /s`;
}

function ns(nsPerOp: number): string {
  if (nsPerOp >= 1e6) return `${(nsPerOp / 1e6).toFixed(2)} ms`;
  if (nsPerOp >= 1e3) return `${(nsPerOp / 1e3).toFixed(2)} us`;
  return `${nsPerOp.toFixed(1)} ns`;
}

function figure(value: number): string {
  if (Number.isInteger(value)) return String(value);
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toPrecision(3);
}

function table(rows: readonly (readonly string[])[]): string[] {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
}

export function formatSuite(result: SuiteResult): string {
  const lines = [`${result.suite}: ${result.title}${result.quick ? ' (quick)' : ''}`];
  if (result.results.length > 0) {
    const rows = [['case', 'time/op', 'rate', '±rme', 'samples', 'baseline', 'ratio']];
    for (const row of result.results)
      rows.push([
        row.name,
        ns(row.nsPerOp),
        rate(row.hz),
        `${row.rme.toFixed(1)}%`,
        String(row.samples),
        row.baseline?.name ?? '',
        row.ratio === null ? '' : `${row.ratio.toFixed(2)}x`,
      ]);
    lines.push(...table(rows).map((line) => `  ${line}`));
  }
  if (result.metrics.length > 0) {
    const rows = [['metric', 'value', 'unit']];
    for (const metric of result.metrics) rows.push([metric.name, figure(metric.value), metric.unit]);
    lines.push(...table(rows).map((line) => `  ${line}`));
  }
  for (const goal of result.goals)
    lines.push(
      `  ${goal.met ? 'met   ' : 'MISSED'}  ${goal.name}: ${figure(goal.value)} (goal ${goal.op} ${goal.target})`,
    );
  return lines.join('\n');
}
