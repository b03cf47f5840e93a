// Named objects on packets (nft_objref_eval) as a ladder on a manual clock: a counter two rules share, a quota whose
// bytes every naming rule consumes, a limit whose bucket refills on virtual time, a reset that zeroes a counter and a
// quota, and a missing object that breaks the rule. Listings pinned from nft 1.0.6 (test/linux/nft-objects.test.ts).

import { describe, expect, it } from 'vitest';
import { objrefMatches } from '../../../src/netfilter/expr/objref.ts';
import type { Table } from '../../../src/netfilter/ir.ts';
import { runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';

const SEC = 1e9;

function loaded(text: string): { store: RulesetStore; table: () => Table } {
  const store = new RulesetStore();
  const result = runNft({ store }, text, { file: 'objects.nft' });
  expect(result.stderr).toBe('');
  return { store, table: () => store.ruleset.tables[0]! };
}

const OBJECTS = `table ip t {
  counter c { packets 1 bytes 10 }
  quota q { 200 bytes }
  limit l { rate 1/second burst 2 packets }
  chain out { counter name c; quota name q; limit name l; }
}
`;

describe('named objects on packets', () => {
  it('counts on the one counter from every rule that names it', () => {
    const { table } = loaded(OBJECTS);
    expect(objrefMatches(table(), 'counter', 'c', 0, 84)).toBe(true);
    expect(objrefMatches(table(), 'counter', 'c', 0, 84)).toBe(true);
    const counter = table().objects!.find((o) => o.name === 'c')!;
    expect(counter.type === 'counter' && counter.counter).toEqual({ packets: 3, bytes: 178 });
  });

  it('consumes a quota: within while the bytes fit, then over', () => {
    const { table } = loaded(OBJECTS);
    const at = (): boolean => objrefMatches(table(), 'quota', 'q', 0, 84);
    expect([at(), at(), at()]).toEqual([true, true, false]);
  });

  it('refills a limit on virtual time', () => {
    const { table } = loaded(OBJECTS);
    const at = (t: number): boolean => objrefMatches(table(), 'limit', 'l', t * SEC, 84);
    expect([at(0), at(0.2), at(0.4), at(1.4)]).toEqual([true, true, false, true]);
  });

  it('breaks the rule when the table has no such object', () => {
    const { table } = loaded(OBJECTS);
    expect(objrefMatches(table(), 'quota', 'c', 0, 84)).toBe(false);
  });

  it('lists what reset zeroed, then the zeroed objects', () => {
    const { store, table } = loaded(OBJECTS);
    objrefMatches(table(), 'quota', 'q', 0, 84);
    expect(runNft({ store }, 'reset quotas').stdout).toBe(
      'table ip t {\n\tquota q {\n\t\t200 bytes used 84 bytes\n\t}\n}\n',
    );
    expect(runNft({ store }, 'reset counter ip t c').stdout).toBe(
      'table ip t {\n\tcounter c {\n\t\tpackets 1 bytes 10\n\t}\n}\n',
    );
    expect(runNft({ store }, 'list table ip t').stdout).toBe(
      'table ip t {\n\tcounter c {\n\t\tpackets 0 bytes 0\n\t}\n\n\tquota q {\n\t\t200 bytes\n\t}\n\n' +
        '\tlimit l {\n\t\trate 1/second burst 2 packets\n\t}\n\n\tchain out {\n\t\tcounter name "c"\n' +
        '\t\tquota name "q"\n\t\tlimit name "l"\n\t}\n}\n',
    );
  });

  it('refuses to delete an object a rule names (EBUSY), and deletes it once unnamed', () => {
    const { store } = loaded(OBJECTS);
    expect(runNft({ store }, 'delete counter ip t c').stderr).toBe(
      'Error: Could not process rule: Device or resource busy\ndelete counter ip t c\n                    ^\n',
    );
    expect(runNft({ store }, 'flush chain ip t out; delete counter ip t c').exitCode).toBe(0);
    expect(runNft({ store }, 'list counters').stdout).toBe('table ip t {\n}\n');
  });
});
