// `meta time`, `meta day`, `meta hour`: each form as nft 1.0.6 on Linux 6.18 listed it (or refused it, with its
// first error line), measured in a throwaway namespace; and the keys read off the virtual clock.

import { describe, expect, it } from 'vitest';
import { readClock } from '../../../src/netfilter/expr/clock.ts';
import { runNft } from '../../../src/netfilter/nft/index.ts';
import { printJsonRuleset } from '../../../src/netfilter/nft/json-print.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';

/** [rule as written, as nft 1.0.6 lists it, or its error line]. */
const CASES: readonly (readonly [string, string])[] = [
  ['meta day "Monday"', 'meta day "Monday"'],
  ['meta day Saturday', 'meta day "Saturday"'],
  ['meta day 6', 'meta day "Saturday"'],
  ['meta day { Monday, 0 }', 'meta day { "Sunday", "Monday" }'],
  ['meta day != 3', 'meta day != "Wednesday"'],
  ['meta day 1-3', 'meta day 1-3'],
  ['meta day "Monday"-"Friday"', 'meta day 1-5'],
  ['meta day "Sat"', 'Error: Could not parse Day of week of packet reception'],
  ['meta day "monday"', 'Error: Could not parse Day of week of packet reception'],
  ['meta day 7', 'Error: Value 7 exceeds valid range 0-6'],
  ['day "Monday"', 'meta day "Monday"'],
  ['meta hour "17:00"-"19:00"', 'meta hour "17:00"-"19:00"'],
  ['meta hour "22:00"-"02:00"', 'meta hour != "02:00"-"22:00"'],
  ['meta hour != "22:00"-"02:00"', 'meta hour "02:00"-"22:00"'],
  ['meta hour != "17:00"-"19:00"', 'meta hour != "17:00"-"19:00"'],
  ['meta hour "17:00:30"', 'meta hour "17:00:30"'],
  ['meta hour < "08:00"', 'meta hour < "08:00"'],
  ['meta hour "8:5"', 'meta hour "08:05"'],
  ['meta hour 3600', 'meta hour "01:00"'],
  ['meta hour "17"', 'meta hour "00:00:17"'],
  ['meta hour "-1"', 'meta hour "06:28:15"'],
  ['meta hour "23:59:59"', 'meta hour "23:59:59"'],
  ['meta hour { "10:00", "11:00"-"12:00" }', 'meta hour { "10:00", "11:00"-"12:00" }'],
  ['meta hour "25:00"', 'Error: wrong time format'],
  ['meta hour "24:00"', 'Error: wrong time format'],
  ['meta hour "x"', 'Error: wrong time format'],
  ['meta hour { "22:00"-"02:00" }', 'Error: Range has zero or negative size'],
  ['hour "17:00"', 'meta hour "17:00"'],
  ['meta time "2024-01-01 10:00:00"', 'meta time "2024-01-01 10:00:00"'],
  ['meta time < "2024-01-01"', 'meta time < "2024-01-01 00:00:00"'],
  [
    'meta time "2024-01-01 10:00"-"2024-01-02 11:00:30"',
    'meta time "2024-01-01 10:00:00"-"2024-01-02 11:00:30"',
  ],
  ['meta time 1700000000', 'meta time "2023-11-14 22:13:20"'],
  ['meta time != "2024-01-01"', 'meta time != "2024-01-01 00:00:00"'],
  ['meta time { "2024-01-01" }', 'meta time "2024-01-01 00:00:00"'],
  ['meta time "2024-01-01 25:00"', 'meta time "2024-01-01 00:00:00"'],
  ['meta time "2024-01-01T10:00"', 'meta time "2024-01-01 00:00:00"'],
  ['meta time "2024-13-01"', 'Error: Cannot parse date'],
  ['meta time "x"', 'Error: Cannot parse date'],
  ['time 5', 'meta time "1970-01-01 00:00:05"'],
];

describe('meta time, day and hour list as nft 1.0.6 lists them', () => {
  it.each(CASES)('%s', (rule, printed) => {
    const netfilter = { store: new RulesetStore() };
    const added = runNft(netfilter, `add table ip t; add chain ip t c; add rule ip t c ${rule} counter`);
    if (printed.startsWith('Error: ')) {
      expect(added.exitCode).toBe(1);
      expect(added.stderr.split('\n')[0]).toBe(printed);
      return;
    }
    expect(added.stderr).toBe('');
    const listed = runNft(netfilter, 'list chain ip t c');
    expect(listed.stdout.split('\n')[2]).toBe(`\t\t${printed} counter packets 0 bytes 0`);
  });
});

describe('nft -j', () => {
  it('prints the values as nft 1.0.6 does', () => {
    const netfilter = { store: new RulesetStore() };
    runNft(
      netfilter,
      'add table ip t; add chain ip t c; add rule ip t c meta hour "17:00"-"19:00" meta day "Monday" meta time < "2024-01-01"',
    );
    expect(printJsonRuleset(netfilter.store.ruleset)).toContain(
      '"expr": [{"match": {"op": "==", "left": {"meta": {"key": "hour"}}, "right": {"range": ["17:00", "19:00"]}}}, ' +
        '{"match": {"op": "==", "left": {"meta": {"key": "day"}}, "right": "Monday"}}, ' +
        '{"match": {"op": "<", "left": {"meta": {"key": "time"}}, "right": "2024-01-01 00:00:00"}}]',
    );
  });
});

describe('the wall-clock keys on the virtual clock (virtual 0 is 2023-11-14 22:13:20 UTC, a Tuesday)', () => {
  it('reads time in ns, the weekday and the seconds since midnight', () => {
    expect(readClock('time', 0)).toBe(1_700_000_000e9);
    expect(readClock('day', 0)).toBe(2);
    expect(readClock('hour', 0)).toBe(22 * 3600 + 13 * 60 + 20);
    // 1 h 46 min 40 s later it is Wednesday 00:00:00.
    const midnight = 6400 * 1e9;
    expect(readClock('day', midnight - 1e9)).toBe(2);
    expect(readClock('hour', midnight - 1e9)).toBe(86_399);
    expect(readClock('day', midnight)).toBe(3);
    expect(readClock('hour', midnight)).toBe(0);
  });
});
