import { describe, expect, it } from 'vitest';
import { newFlowKey } from '../../src/net/fib.ts';
import { RT_TABLE_DEFAULT, RT_TABLE_LOCAL, RT_TABLE_MAIN, RTPROT_KERNEL } from '../../src/net/route.ts';
import { type Rule, RuleList, type RuleSpec, ruleMatches } from '../../src/net/rules.ts';
import { parseIpv4 } from '../../src/wire/address.ts';

const ip = (text: string) => parseIpv4(text)!;
const devices: Record<string, number> = { lo: 1, eth0: 3, cni0: 4 };
const indexOf = (name: string) => devices[name];
const noTable = () => {
  throw new Error('no table allocation expected');
};

function priorities(list: RuleList): number[] {
  return list.all.map((rule) => rule.priority);
}

function add(list: RuleList, spec: RuleSpec): Rule {
  const result = list.add(spec, indexOf, noTable);
  if (!result.ok) throw new Error(result.errno);
  return result.rule;
}

describe('default rules (fib_default_rules_init)', () => {
  it('are 0 local, 32766 main, 32767 default, added by the kernel', () => {
    const list = new RuleList();
    expect(list.all.map((r) => [r.priority, r.action, r.table, r.protocol])).toEqual([
      [0, 'table', RT_TABLE_LOCAL, RTPROT_KERNEL],
      [32766, 'table', RT_TABLE_MAIN, RTPROT_KERNEL],
      [32767, 'table', RT_TABLE_DEFAULT, RTPROT_KERNEL],
    ]);
  });
});

describe('priority assignment (fib_default_rule_pref)', () => {
  it('is one below the second rule, repeatedly', () => {
    const list = new RuleList();
    add(list, { action: 'table', table: 100 });
    add(list, { action: 'table', table: 101 });
    add(list, { action: 'table', table: 102 });
    expect(priorities(list)).toEqual([0, 32763, 32764, 32765, 32766, 32767]);
  });

  it('follows an explicit priority that became the second rule', () => {
    const list = new RuleList();
    add(list, { action: 'table', table: 100, priority: 100 });
    expect(list.defaultPriority()).toBe(99);
  });

  it('is 0 when the second rule has priority 0 or there is no second rule', () => {
    const list = new RuleList();
    add(list, { action: 'table', table: 100, priority: 0 });
    expect(list.defaultPriority()).toBe(0);
    const lone = new RuleList();
    lone.delete({ priority: 32766 });
    lone.delete({ priority: 32767 });
    expect(lone.defaultPriority()).toBe(0);
  });

  it('a new rule goes after existing rules of the same priority', () => {
    const list = new RuleList();
    const first = add(list, { action: 'table', table: 100, priority: 0, srcAddr: ip('10.0.0.0'), srcLen: 8 });
    expect(list.all[0]!.table).toBe(RT_TABLE_LOCAL);
    expect(list.all[1]).toBe(first);
  });
});

describe('add and delete', () => {
  it('EEXIST for the same rule, `not` and addresses the new rule lacks are not compared (rule_exists)', () => {
    const list = new RuleList();
    add(list, { action: 'table', table: 5, priority: 28, srcAddr: ip('10.0.0.0'), srcLen: 8 });
    const again = { action: 'table', table: 5, priority: 28 } as const;
    expect(
      list.add({ ...again, srcAddr: ip('10.0.0.0'), srcLen: 8, invert: true }, indexOf, noTable),
    ).toMatchObject({
      ok: false,
      errno: 'EEXIST',
    });
    expect(list.add(again, indexOf, noTable)).toMatchObject({ errno: 'EEXIST' });
    expect(list.add({ ...again, dstAddr: ip('8.8.8.8'), dstLen: 32 }, indexOf, noTable)).toMatchObject({
      ok: true,
    });
  });

  it('rejects ECN bits and high TOS bits as fib4_rule_configure does, changing nothing', () => {
    const list = new RuleList();
    expect(list.add({ action: 'table', table: 5, tos: 0x11 }, indexOf, noTable)).toEqual({
      ok: false,
      errno: 'EINVAL',
      extack: 'Invalid dsfield (tos): ECN bits must be 0',
    });
    expect(list.add({ action: 'table', table: 5, tos: 0x20 }, indexOf, noTable)).toMatchObject({
      extack: 'Invalid tos',
    });
    expect(list.all).toHaveLength(3);
  });

  it('allocates a table for `table 0` only once the rule is accepted', () => {
    const list = new RuleList();
    const result = list.add({ action: 'table', table: 0, priority: 5 }, indexOf, () => 1);
    expect(result).toMatchObject({ ok: true, rule: { table: 1 } });
  });

  it('delete matches only the fields given, first match wins, ENOENT otherwise', () => {
    const list = new RuleList();
    add(list, { action: 'table', table: 100, priority: 100, fwmark: 0x4000 });
    add(list, { action: 'table', table: 200, priority: 100, fwmark: 0x10, fwmask: 0xff });
    expect(list.delete({ priority: 100, fwmark: 0x10 })).toMatchObject({ ok: false, errno: 'ENOENT' });
    expect(list.delete({ priority: 100, fwmark: 0x10, fwmask: 0xff })).toMatchObject({
      ok: true,
      rule: { table: 200 },
    });
    expect(list.delete({ priority: 100 })).toMatchObject({ ok: true, rule: { table: 100 } });
    expect(list.delete({ priority: 100 })).toMatchObject({ ok: false, errno: 'ENOENT' });
  });
});

describe('matching (fib_rule_match + fib4_rule_match)', () => {
  const flow = newFlowKey({ dstAddr: ip('8.8.8.8'), srcAddr: ip('10.244.1.5'), iif: 4, mark: 0x4010 });
  const cases: [string, RuleSpec, boolean][] = [
    ['from all', { action: 'table', table: 1 }, true],
    ['from the source subnet', { action: 'table', srcAddr: ip('10.244.1.0'), srcLen: 24 }, true],
    ['from another subnet', { action: 'table', srcAddr: ip('10.244.2.0'), srcLen: 24 }, false],
    [
      'from an address given with host bits',
      { action: 'table', srcAddr: ip('10.244.1.77'), srcLen: 24 },
      true,
    ],
    ['to the destination', { action: 'table', dstAddr: ip('8.8.8.0'), dstLen: 24 }, true],
    ['fwmark without mask compares every bit', { action: 'table', fwmark: 0x4000 }, false],
    ['fwmark VALUE/MASK selects bits', { action: 'table', fwmark: 0x4000, fwmask: 0x4000 }, true],
    ['fwmark 0x10/0xff', { action: 'table', fwmark: 0x10, fwmask: 0xff }, true],
    ['fwmark 0x20/0xff', { action: 'table', fwmark: 0x20, fwmask: 0xff }, false],
    ['fwmark 0 with a mask wants those bits clear', { action: 'table', fwmark: 0, fwmask: 0x1 }, true],
    ['iif of the flow', { action: 'table', iifName: 'cni0' }, true],
    ['iif of another device', { action: 'table', iifName: 'eth0' }, false],
    ['iif of a missing device never matches', { action: 'table', iifName: 'eth9' }, false],
    ['oif when the flow has none', { action: 'table', oifName: 'eth0' }, false],
    ['not + non-matching selector', { action: 'table', invert: true, oifName: 'eth0' }, true],
    ['not + matching selector', { action: 'table', invert: true, iifName: 'cni0' }, false],
  ];
  for (const [name, spec, expected] of cases) {
    it(`${name}: ${expected}`, () => {
      const list = new RuleList();
      const rule = add(list, { table: 1, ...spec, priority: 10 });
      expect(ruleMatches(rule, flow)).toBe(expected);
    });
  }

  it('tos compares the legacy TOS bits of the flow', () => {
    const list = new RuleList();
    const rule = add(list, { action: 'table', table: 7, tos: 0x10 });
    expect(ruleMatches(rule, newFlowKey({ tos: 0x10 }))).toBe(true);
    expect(ruleMatches(rule, newFlowKey({ tos: 0x12 }))).toBe(true);
    expect(ruleMatches(rule, newFlowKey({ tos: 0x08 }))).toBe(false);
  });

  it('a detached device attaches when it appears and detaches when it goes', () => {
    const list = new RuleList();
    const rule = add(list, { action: 'table', table: 300, iifName: 'eth9' });
    expect(rule.iifIndex).toBe(-1);
    list.attachDevice('eth9', 9);
    expect(ruleMatches(rule, newFlowKey({ iif: 9 }))).toBe(true);
    list.detachDevice(9);
    expect(rule.iifIndex).toBe(-1);
    expect(ruleMatches(rule, newFlowKey({ iif: 9 }))).toBe(false);
  });
});
