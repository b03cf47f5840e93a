// netem's distribution tables against the files Debian's iproute2 ships (/usr/lib/x86_64-linux-gnu/tc/*.dist), and
// the pieces they are built from (erf, rint).

import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { distributionTable, erf, rint } from '../../../src/link/qdisc/netem-tables.ts';

const TC_LIB = '/usr/lib/x86_64-linux-gnu/tc';

function shipped(name: string): number[] {
  const text = readFileSync(`${TC_LIB}/${name}.dist`, 'utf8');
  return text
    .split('\n')
    .filter((line) => !line.startsWith('#'))
    .join(' ')
    .trim()
    .split(/\s+/)
    .map(Number);
}

describe('netem distribution tables', () => {
  for (const name of ['normal', 'pareto', 'paretonormal'] as const) {
    it(`generates ${name}.dist value for value`, (ctx) => {
      if (!existsSync(`${TC_LIB}/${name}.dist`)) {
        console.log(`skipped: ${TC_LIB}/${name}.dist not installed (iproute2)`);
        ctx.skip();
      }
      expect([...distributionTable(name)]).toEqual(shipped(name));
    });
  }

  it('has 4096 increasing entries of a normal around 0 (in units of sigma / 8192)', () => {
    const table = distributionTable('normal');
    expect(table.length).toBe(4096);
    expect(table[2048]).toBe(0);
    for (let i = 1; i < table.length; i++) expect(table[i]!).toBeGreaterThanOrEqual(table[i - 1]!);
    // The 84th percentile is about one sigma.
    expect(Math.abs(table[Math.round(4096 * 0.8413)]! - 8192)).toBeLessThan(30);
  });
});

describe('erf and rint', () => {
  it('erf matches known values to 1e-15', () => {
    expect(Math.abs(erf(0.5) - 0.5204998778130465)).toBeLessThan(1e-15);
    expect(Math.abs(erf(1) - 0.8427007929497149)).toBeLessThan(1e-15);
    expect(Math.abs(erf(2.5) - 0.999593047982555)).toBeLessThan(1e-15);
    expect(Math.abs(erf(-3.5) + 0.9999992569016276)).toBeLessThan(1e-15);
    expect(erf(10)).toBe(1);
  });

  it('rint rounds halves to even, as C does', () => {
    const values = [0.5, 1.5, 2.5, -0.5, -1.5, 2.4, -2.6].map((v) => rint(v) + 0);
    expect(values).toEqual([0, 2, 2, 0, -2, 2, -3]);
  });
});
