// The persistent set index (src/netfilter/expr/set-index.ts): keys found by their parts and by packet reads, kept up
// to date element by element through add, remove, replace and clear, across growth and removal marks; and a failed
// transaction leaves the live set's index as it was.

import { describe, expect, it } from 'vitest';
import {
  clearElements,
  hashConstant,
  type KeyRead,
  pushElement,
  removeElementAt,
  replaceElement,
  SetIndex,
  sameConstant,
  setIndexOf,
} from '../../../src/netfilter/expr/set-index.ts';
import type { Constant, SetElement } from '../../../src/netfilter/ir.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec, execOrThrow } from '../../../src/tools/exec.ts';

const num = (value: number): Constant => ({ kind: 'number', value });
const concat = (...values: number[]): Constant => ({ kind: 'concat', parts: values.map(num) });
const element = (key: Constant): SetElement => ({ key, data: undefined });

describe('set index', () => {
  it('finds concatenated keys by their parts and by the reads a packet makes', () => {
    const a = element(concat(0x0a600001, 17, 80));
    const b = element(concat(0x0a600002, 6, 443));
    const index = new SetIndex([a, b]);
    expect(index.find(concat(0x0a600001, 17, 80))).toBe(a);
    expect(index.find(concat(0x0a600001, 17, 81))).toBeUndefined();
    const reads: KeyRead[] = [0x0a600002, 6, 443];
    expect(index.findReads(reads, 3)).toBe(b);
    reads[1] = 17;
    expect(index.findReads(reads, 3)).toBeUndefined();
    // Two reads of three: no key of two parts.
    expect(index.findReads([0x0a600002, 6, 443], 2)).toBeUndefined();
  });

  it('tells numbers from names and keeps prefixes, ranges and wildcards for the scan', () => {
    const name = element({ kind: 'string', value: 'eth0', wildcard: false });
    const wildcard = element({ kind: 'string', value: 'veth', wildcard: true });
    const prefix = element({ kind: 'prefix', addr: 0x0a000000, len: 8 });
    const range = element({ kind: 'range', low: 1000, high: 2000 });
    const index = new SetIndex([name, wildcard, prefix, range]);
    expect(index.findReads(['eth0'], 1)).toBe(name);
    expect(index.findReads(['veth'], 1)).toBeUndefined();
    expect(index.scanned).toEqual([wildcard, prefix, range]);
    expect(index.find({ kind: 'string', value: 'veth', wildcard: true })).toBe(wildcard);
    expect(index.find({ kind: 'string', value: 'veth', wildcard: false })).toBeUndefined();
    expect(index.find({ kind: 'prefix', addr: 0x0a000000, len: 8 })).toBe(prefix);
    expect(index.find({ kind: 'range', low: 1000, high: 2000 })).toBe(range);
    expect(index.find(num(1000))).toBeUndefined();
  });

  it('verifies keys that do not pack (four parts, 48-bit numbers) and never takes a wide read for its low bits', () => {
    const four = element(concat(1, 2, 3, 4));
    const mac = element(num(0x0242_ac11_0002));
    const low = element(num(0xac11_0002));
    const index = new SetIndex([four, mac, low]);
    expect(index.findReads([1, 2, 3, 4], 4)).toBe(four);
    expect(index.findReads([1, 2, 3, 5], 4)).toBeUndefined();
    expect(index.findReads([0x0242_ac11_0002], 1)).toBe(mac);
    expect(index.findReads([0xac11_0002], 1)).toBe(low);
    expect(index.findReads([0x0001_ac11_0002], 1)).toBeUndefined();
    expect(index.findReads([-0x53ee_fffe], 1)).toBeUndefined();
  });

  it('keys a one-part concatenation as its part; keys are the same when kind and fields are', () => {
    expect(hashConstant(concat(5))).toBe(hashConstant(num(5)));
    expect(sameConstant(concat(1, 2), concat(1, 2))).toBe(true);
    expect(sameConstant(concat(1, 2), concat(1, 3))).toBe(false);
    expect(sameConstant(num(5), concat(5))).toBe(false);
    expect(sameConstant({ kind: 'prefix', addr: 1, len: 32 }, num(1))).toBe(false);
  });

  it('stays up to date element by element, through growth and removals', () => {
    const elements: SetElement[] = [];
    const all: SetElement[] = [];
    for (let i = 0; i < 2000; i++) {
      const e = element(concat(i, 17, 80));
      all.push(e);
      pushElement(elements, e);
    }
    for (let i = 0; i < 2000; i += 2) removeElementAt(elements, elements.indexOf(all[i]!));
    const index = setIndexOf(elements);
    expect(index.size).toBe(1000);
    for (let i = 0; i < 2000; i++)
      expect(index.findReads([i, 17, 80], 3)).toBe(i % 2 === 0 ? undefined : all[i]);
    // Removal marks are purged as the table refills.
    for (let i = 0; i < 2000; i += 2) pushElement(elements, all[i]!);
    for (let i = 0; i < 2000; i++) expect(index.find(concat(i, 17, 80))).toBe(all[i]);
    const updated = { ...all[7]!, expires: 5 };
    replaceElement(elements, all[7]!, updated);
    expect(index.findReads([7, 17, 80], 3)).toBe(updated);
    expect(elements.includes(all[7]!)).toBe(false);
    clearElements(elements);
    expect(elements).toEqual([]);
    expect(setIndexOf(elements).findReads([7, 17, 80], 3)).toBeUndefined();
  });
});

describe('set index and nft transactions', () => {
  it('a failed nft -f leaves the set and its lookups as they were; a later one adds to them', () => {
    const sim = new Simulation({ seed: 'set-index' });
    const ns = sim.addNamespace('n');
    execOrThrow(ns, 'nft -f -', {
      stdin: 'table ip t {\n  set s { type ipv4_addr . inet_service ; elements = { 10.0.0.1 . 80 } ; }\n}\n',
    });
    const failed = exec(ns, 'nft -f -', {
      stdin:
        'add element ip t s { 10.0.0.2 . 80 }\ndelete element ip t s { 10.0.0.1 . 80 }\nadd element ip t nope { 1.2.3.4 . 1 }\n',
    });
    expect(failed.exitCode).toBe(1);
    const set = ns.netfilter.store.ruleset.tables[0]!.sets.get('s')!;
    const index = setIndexOf(set.elements);
    expect(index.size).toBe(1);
    expect(index.findReads([0x0a000001, 80], 2)).toBe(set.elements[0]);
    expect(index.findReads([0x0a000002, 80], 2)).toBeUndefined();
    execOrThrow(ns, 'nft add element ip t s { 10.0.0.2 . 80 }');
    execOrThrow(ns, 'nft delete element ip t s { 10.0.0.1 . 80 }');
    const after = ns.netfilter.store.ruleset.tables[0]!.sets.get('s')!;
    expect(setIndexOf(after.elements).findReads([0x0a000001, 80], 2)).toBeUndefined();
    expect(setIndexOf(after.elements).findReads([0x0a000002, 80], 2)).toBe(after.elements[0]);
    expect(exec(ns, 'nft list set ip t s').stdout).toContain('elements = { 10.0.0.2 . 80 }');
  });
});
