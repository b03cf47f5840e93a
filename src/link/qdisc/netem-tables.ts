// netem's delay distribution tables, generated in code the way iproute2's tc/normal.c, pareto.c and paretonormal.c
// write normal.dist, pareto.dist and paretonormal.dist (4096 signed 16-bit values, scaled by NETEM_DIST_SCALE).
//
// Each table is a scaled inverse of the cumulative distribution function: netem picks an entry
// with a uniform random index and multiplies it by the jitter (tabledist). The generators run
// the same loops over doubles as the C programs; erf, which JavaScript lacks, is computed by
// series and continued fraction to about 1e-15, so the tables match the shipped files.
// No `experimental` table, no custom tables from files.

/** NETEM_DIST_SCALE: table values are multiples of sigma / 8192. */
export const NETEM_DIST_SCALE = 8192;
const TABLESIZE = 16384;
const SHRT_MIN = -32768;
const SHRT_MAX = 32767;

export type NetemDistribution = 'normal' | 'pareto' | 'paretonormal';

const cache = new Map<NetemDistribution, Int16Array>();

/** The table for `name` (built once, then shared: tables are constant). */
export function distributionTable(name: NetemDistribution): Int16Array {
  let table = cache.get(name);
  if (table === undefined) {
    table = build(name);
    cache.set(name, table);
  }
  return table;
}

function build(name: NetemDistribution): Int16Array {
  switch (name) {
    case 'normal':
      return normalTable();
    case 'pareto':
      return paretoTable();
    case 'paretonormal':
      return paretonormalTable();
    default: {
      const never: never = name;
      throw new Error(`netem: no table ${String(never)}`);
    }
  }
}

/** normal.c: x from -10 to 10 in steps of 0.00005, table[rint(16384 * Phi(x))] = x, every 4th entry kept. */
function inverseNormal(): Float64Array {
  const table = new Float64Array(TABLESIZE + 1);
  for (let x = -10.0; x < 10.05; x += 0.00005) {
    const i = rint(TABLESIZE * normalCdf(x));
    table[i] = x;
  }
  return table;
}

function normalTable(): Int16Array {
  const inverse = inverseNormal();
  const out = new Int16Array(TABLESIZE / 4);
  for (let i = 0, n = 0; i < TABLESIZE; i += 4, n++)
    out[n] = clampShort(rint(inverse[i]! * NETEM_DIST_SCALE));
  return out;
}

/** pareto.c: shape a = 3, for i from 65536 down to 16 in steps of 16. */
function paretoTable(): Int16Array {
  const out = new Int16Array(TABLESIZE / 4);
  let n = 0;
  for (let i = 65536; i > 0; i -= 16) out[n++] = paretoValue(i);
  return out;
}

/** paretonormal.c: (normal + 3 * pareto) / 4 in C integer division. */
function paretonormalTable(): Int16Array {
  const inverse = inverseNormal();
  const out = new Int16Array(TABLESIZE / 4);
  for (let i = 0, n = 0; i < TABLESIZE; i += 4, n++) {
    const normal = rint(inverse[i]! * NETEM_DIST_SCALE);
    const pareto = paretoValue(65536 - 4 * i);
    out[n] = clampShort(Math.trunc((normal + 3 * pareto) / 4));
  }
  return out;
}

function paretoValue(i: number): number {
  let value = i / 65536;
  value = 1.0 / value ** (1.0 / 3.0);
  value -= 1.5;
  value *= (4.0 / 3.0) * NETEM_DIST_SCALE;
  if (value > SHRT_MAX) value = SHRT_MAX;
  return rint(value);
}

function normalCdf(x: number): number {
  return 0.5 + 0.5 * erf(x / Math.SQRT2);
}

/** C's rint in the default rounding mode: to nearest, ties to even. */
export function rint(value: number): number {
  const floor = Math.floor(value);
  const fraction = value - floor;
  if (fraction < 0.5) return floor;
  if (fraction > 0.5) return floor + 1;
  return floor % 2 === 0 ? floor : floor + 1;
}

function clampShort(value: number): number {
  return Math.max(SHRT_MIN, Math.min(value, SHRT_MAX));
}

const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

/** The error function: a series of positive terms below 3, the continued fraction of erfc above. */
export function erf(x: number): number {
  if (x < 0) return -erf(-x);
  if (x < 3) {
    // erf(x) = 2/sqrt(pi) * exp(-x^2) * sum 2^n x^(2n+1) / (1*3*...*(2n+1)): no cancellation.
    const x2 = x * x;
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= (2 * x2) / (2 * n + 1);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return TWO_OVER_SQRT_PI * Math.exp(-x2) * sum;
  }
  return 1 - erfc(x);
}

/** erfc for x >= 3 by Lentz's method on its continued fraction. */
function erfc(x: number): number {
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    d = x + a * d;
    d = d === 0 ? tiny : d;
    c = x + a / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}
