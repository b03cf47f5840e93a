// A small SVG line plot of a suite's results (`packetlab bench --svg FILE`, scripts/bench-plots.ts): cost per
// operation (ns, log scale) against the X its case names carry, one series per case family, with labelled axes, ticks
// and a legend. Case names read `SERIES @ X` (user suites) or carry X as a word, a number with an optional k/M suffix
// (`hit 100k`, `scheduler 1k pending`: the repository's suites; the series is the other words); others are left out. No styling beyond what a plot needs.

import type { SuiteResult } from './suite.ts';

export interface PlotPoint {
  readonly x: number;
  readonly y: number;
}

export interface PlotSeries {
  readonly name: string;
  readonly points: readonly PlotPoint[];
}

const SUFFIX: Readonly<Record<string, number>> = { '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9 };

/** The series and X of a case name, or undefined when it has no X. */
export function splitCaseName(name: string): { readonly series: string; readonly x: number } | undefined {
  const at = name.lastIndexOf(' @ ');
  if (at >= 0) {
    const x = Number(name.slice(at + 3));
    return Number.isFinite(x) ? { series: name.slice(0, at), x } : undefined;
  }
  const words = name.trim().split(/\s+/);
  const at2 = words.findIndex((word) => /^\d+(?:\.\d+)?[kKMG]?$/.test(word));
  if (at2 < 0 || words.length < 2) return undefined;
  const word = words[at2]!;
  const suffix = /[kKMG]$/.test(word) ? word.slice(-1) : '';
  const x = Number(suffix === '' ? word : word.slice(0, -1)) * SUFFIX[suffix]!;
  return { series: words.filter((_, i) => i !== at2).join(' '), x };
}

/** One series per case family, points in X order: y is ns per operation. */
export function seriesOf(result: SuiteResult): PlotSeries[] {
  const byName = new Map<string, PlotPoint[]>();
  for (const row of result.results) {
    const split = splitCaseName(row.name);
    if (split === undefined) continue;
    const points = byName.get(split.series) ?? [];
    points.push({ x: split.x, y: row.nsPerOp });
    byName.set(split.series, points);
  }
  return [...byName].map(([name, points]) => ({ name, points: points.sort((a, b) => a.x - b.x) }));
}

function escapeXml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/** 1, 2, 5 × 10^k within [low, high] (at least the two ends). */
function logTicks(low: number, high: number): number[] {
  const ticks: number[] = [];
  for (let decade = 10 ** Math.floor(Math.log10(low)); decade <= high; decade *= 10)
    for (const step of [1, 2, 5]) {
      const tick = decade * step;
      if (tick >= low * 0.999 && tick <= high * 1.001) ticks.push(tick);
    }
  return ticks.length >= 2 ? ticks : [low, high];
}

function linearTicks(low: number, high: number): number[] {
  if (high === low) return [low];
  const raw = (high - low) / 5;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= raw)!;
  const ticks: number[] = [];
  for (let tick = Math.ceil(low / step) * step; tick <= high + step * 1e-9; tick += step) ticks.push(tick);
  return ticks;
}

function label(value: number): string {
  if (value >= 1e6) return `${+(value / 1e6).toPrecision(3)}M`;
  if (value >= 1e3) return `${+(value / 1e3).toPrecision(3)}k`;
  return `${+value.toPrecision(3)}`;
}

/** The title on at most two lines of about 100 characters (the second shortened with an ellipsis). */
function titleLines(title: string): string[] {
  if (title.length <= 90) return [title];
  const cut = title.lastIndexOf(' ', 90);
  const first = title.slice(0, cut > 0 ? cut : 90);
  const rest = title.slice(first.length).trim();
  return [first, rest.length > 110 ? `${rest.slice(0, 109)}…` : rest];
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf'];

export interface PlotOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel?: string;
}

/** The plot as an SVG document (an empty plot, axes only, when there is no point). */
export function svgPlot(series: readonly PlotSeries[], options: PlotOptions): string {
  const width = 720;
  const height = 420;
  const left = 80;
  const right = 200;
  const top = 56;
  const bottom = 60;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const points = series.flatMap((entry) => entry.points);
  const xs = points.map((p) => p.x);
  const ys = points.map((p) => p.y).filter((y) => y > 0);
  const xMin = xs.length > 0 ? Math.min(...xs) : 0;
  const xMax = xs.length > 0 ? Math.max(...xs) : 1;
  const xLog = xMin > 0 && xMax / xMin >= 100;
  const yMin = ys.length > 0 ? Math.min(...ys) : 1;
  const yMax = ys.length > 0 ? Math.max(...ys) : 10;
  const yLow = 10 ** Math.floor(Math.log10(yMin));
  const yHigh = 10 ** Math.ceil(Math.log10(yMax * 1.0001));
  const xPos = (x: number): number => {
    if (xMax === xMin) return left + plotW / 2;
    const t = xLog ? Math.log(x / xMin) / Math.log(xMax / xMin) : (x - xMin) / (xMax - xMin);
    return left + t * plotW;
  };
  const yPos = (y: number): number =>
    top + plotH - (Math.log(Math.max(y, yLow) / yLow) / Math.log(yHigh / yLow)) * plotH;
  const out: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<title>${escapeXml(options.title)}</title>`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#ffffff"/>`,
    ...titleLines(options.title).map(
      (line, i) =>
        `<text x="${width / 2}" y="${20 + i * 16}" text-anchor="middle" font-size="${i === 0 ? 14 : 11}">${escapeXml(line)}</text>`,
    ),
    `<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="#000000"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="#000000"/>`,
  ];
  for (const tick of xLog ? logTicks(xMin, xMax) : linearTicks(xMin, xMax)) {
    const x = xPos(tick).toFixed(1);
    out.push(
      `<line x1="${x}" y1="${top + plotH}" x2="${x}" y2="${top + plotH + 5}" stroke="#000000"/>`,
      `<text x="${x}" y="${top + plotH + 18}" text-anchor="middle">${label(tick)}</text>`,
    );
  }
  for (let tick = yLow; tick <= yHigh * 1.0001; tick *= 10) {
    const y = yPos(tick).toFixed(1);
    out.push(
      `<line x1="${left - 5}" y1="${y}" x2="${left + plotW}" y2="${y}" stroke="#dddddd"/>`,
      `<text x="${left - 8}" y="${y}" text-anchor="end" dominant-baseline="middle">${label(tick)}</text>`,
    );
  }
  out.push(
    `<text x="${left + plotW / 2}" y="${height - 18}" text-anchor="middle">${escapeXml(options.xLabel)}${xLog ? ' (log scale)' : ''}</text>`,
    `<text x="20" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 20 ${top + plotH / 2})">${escapeXml(options.yLabel ?? 'ns per operation (log scale)')}</text>`,
  );
  series.forEach((entry, index) => {
    const colour = COLOURS[index % COLOURS.length]!;
    const path = entry.points.map((p) => `${xPos(p.x).toFixed(1)},${yPos(p.y).toFixed(1)}`).join(' ');
    out.push(`<g><title>${escapeXml(entry.name)}</title>`);
    if (entry.points.length > 1)
      out.push(`<polyline points="${path}" fill="none" stroke="${colour}" stroke-width="2"/>`);
    for (const p of entry.points)
      out.push(`<circle cx="${xPos(p.x).toFixed(1)}" cy="${yPos(p.y).toFixed(1)}" r="3" fill="${colour}"/>`);
    out.push('</g>');
    const ly = top + 10 + index * 18;
    out.push(
      `<line x1="${left + plotW + 16}" y1="${ly}" x2="${left + plotW + 36}" y2="${ly}" stroke="${colour}" stroke-width="2"/>`,
      `<text x="${left + plotW + 42}" y="${ly}" dominant-baseline="middle">${escapeXml(entry.name)}</text>`,
    );
  });
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** The X axis's label for a suite: what its case names count. */
export const X_LABELS: Readonly<Record<string, string>> = {
  conntrack: 'flows in the table',
  nat: 'occupancy of the port range (%)',
  rules: 'rules loaded',
  path: 'flows in flight',
};

/** A suite's result as its plot. */
export function suitePlot(result: SuiteResult): string {
  return svgPlot(seriesOf(result), {
    title: `${result.suite}: ${result.title}`,
    xLabel: X_LABELS[result.suite] ?? 'size',
  });
}
