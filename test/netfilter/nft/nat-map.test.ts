// `dnat to KEY map { ... }` and `map @m`: each form as nft 1.0.6 on Linux 6.18 listed it, measured in a throwaway
// namespace, and the named map busy while a nat statement uses it.

import { describe, expect, it } from 'vitest';
import { runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';

const PRELUDE =
  'add table ip t; add chain ip t c { type nat hook prerouting priority dstnat; }; ' +
  'add map ip t m { type ipv4_addr : ipv4_addr; }';

/** [rule as written, as nft 1.0.6 lists it]. */
const CASES: readonly (readonly [string, string])[] = [
  [
    'dnat to ip daddr map { 10.0.0.1 : 192.168.0.1, 10.0.0.2 : 192.168.0.2 }',
    'dnat to ip daddr map { 10.0.0.1 : 192.168.0.1, 10.0.0.2 : 192.168.0.2 }',
  ],
  ['dnat to tcp dport map { 80 : 10.0.0.1 . 8080 }', 'dnat ip to tcp dport map { 80 : 10.0.0.1 . 8080 }'],
  ['dnat ip to ip daddr map { 10.0.0.1 : 192.168.0.1 }', 'dnat to ip daddr map { 10.0.0.1 : 192.168.0.1 }'],
  ['dnat to ip daddr map @m', 'dnat to ip daddr map @m'],
  [
    'dnat to ip daddr . tcp dport map { 10.0.0.1 . 80 : 192.168.0.1 }',
    'dnat to ip daddr . tcp dport map { 10.0.0.1 . 80 : 192.168.0.1 }',
  ],
];

describe('nat statements with a data map list as nft 1.0.6 lists them', () => {
  it.each(CASES)('%s', (rule, printed) => {
    const netfilter = { store: new RulesetStore() };
    const added = runNft(netfilter, `${PRELUDE}; add rule ip t c ${rule}`);
    expect(added.stderr).toBe('');
    const lines = runNft(netfilter, 'list chain ip t c').stdout.split('\n');
    expect(lines[3]).toBe(`\t\t${printed}`);
  });

  it('in inet tables needs the family before the map, and lists with ip (nft 1.0.6)', () => {
    const netfilter = { store: new RulesetStore() };
    const inet = 'add table inet t; add chain inet t pre { type nat hook prerouting priority dstnat; }';
    const refused = runNft(
      netfilter,
      `${inet}; add rule inet t pre dnat to ip saddr map { 10.0.0.1 : 10.0.0.2 }`,
    );
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.split('\n')[0]).toBe(
      'Error: ip or ip6 must be specified with address for inet tables.',
    );
    const added = runNft(
      netfilter,
      `${inet}; add rule inet t pre iifname "eth0" ip daddr 1.2.3.4 dnat to ip saddr map { 10.0.0.1 : 10.0.0.2 }`,
    );
    expect(added.stderr).toBe('');
    expect(runNft(netfilter, 'list chain inet t pre').stdout.split('\n')[3]).toBe(
      '\t\tiifname "eth0" ip daddr 1.2.3.4 dnat ip to ip saddr map { 10.0.0.1 : 10.0.0.2 }',
    );
  });

  it('a map a nat statement names cannot be deleted', () => {
    const netfilter = { store: new RulesetStore() };
    runNft(netfilter, `${PRELUDE}; add rule ip t c dnat to ip daddr map @m`);
    const deleted = runNft(netfilter, 'delete map ip t m');
    expect(deleted.exitCode).toBe(1);
    expect(deleted.stderr.split('\n')[0]).toBe('Error: Could not process rule: Device or resource busy');
  });
});
