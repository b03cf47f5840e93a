// Every scenario the `packetlab` command lists runs here with its own seed and passes every check it declares.

import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scenarios/index.ts';

describe('the scenario table', () => {
  it.each(SCENARIOS.map((entry) => [entry.name, entry] as const))('%s passes its checks', (_name, entry) => {
    const result = entry.run({ seed: undefined, args: [] });
    if ('usage' in result) throw new Error(result.usage);
    expect(result.checks.length).toBeGreaterThan(0);
    expect(result.checks.filter((check) => !check.pass)).toEqual([]);
    expect(result.ok).toBe(true);
  });
});
