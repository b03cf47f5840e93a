// The expressions and statements added for nft 1.0.6's ip and inet families, as the real nft listed them on this
// machine (the corpus in test/linux/nft-corpus.test.ts checks them all against it; these run without a kernel).

import { describe, expect, it } from 'vitest';
import { runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';

function listed(family: 'ip' | 'inet', rule: string): string {
  const netfilter = { store: new RulesetStore() };
  const added = runNft(
    netfilter,
    `add table ${family} t; add chain ${family} t c; add chain ${family} t c2; add rule ${family} t c ${rule}`,
  );
  if (added.exitCode !== 0) return `ERROR ${added.stderr.split('\n')[0]}`;
  return runNft(netfilter, `list chain ${family} t c`).stdout.split('\n')[2]!.slice(2);
}

const CASES: readonly (readonly ['ip' | 'inet', string, string])[] = [
  ['ip', 'limit rate 10/second burst 5 packets', 'limit rate 10/second'],
  ['ip', 'limit rate over 10/minute burst 1 packets', 'limit rate over 10/minute burst 1 packets'],
  ['ip', 'limit rate 2048 bytes/second burst 1024 bytes', 'limit rate 2 kbytes/second burst 1 kbytes'],
  ['ip', 'limit rate 10 bytes/second burst 0 bytes', 'limit rate 10 bytes/second'],
  ['ip', 'limit rate 10/second burst 0 packets', 'ERROR Error: packet limit burst must be > 0'],
  ['ip', 'limit rate 0/second', 'ERROR Error: Could not process rule: Invalid argument'],
  ['ip', 'limit rate 10 gbytes/second', 'ERROR Error: Wrong rate format'],
  ['ip', 'quota until 100 bytes', 'quota 100 bytes'],
  ['ip', 'quota over 10 mbytes used 5 kbytes', 'quota over 10 mbytes used 5 kbytes'],
  ['ip', 'quota 100 drop', 'ERROR Error: syntax error, unexpected drop, expecting string or bytes'],
  ['ip', 'counter bytes 7 packets 5', 'counter packets 5 bytes 7'],
  ['ip', 'ct expiration 30', 'ct expiration 30s'],
  ['ip', 'ct expiration 10s-20s', 'ct expiration 10s-20s'],
  ['ip', 'ct expiration foo', 'ERROR Error: wrong time format'],
  ['ip', 'numgen inc mod 2 offset 10 == 1', 'numgen inc mod 2 offset 10 1'],
  ['ip', 'numgen inc mod 2 10-11', 'ERROR Error: Value 10 exceeds valid range 0-1'],
  ['ip', 'numgen inc mod 0 0', 'ERROR Error: Could not process rule: Numerical result out of range'],
  ['ip', 'jhash ip saddr . tcp dport mod 4 != 1', 'jhash ip saddr . tcp dport mod 4 != 1'],
  ['ip', 'jhash ip saddr mod 2 seed 0x1 offset 100 0', 'jhash ip saddr mod 2 seed 0x1 offset 100 0'],
  ['ip', 'meta mark set symhash mod 2', 'meta mark set symhash mod 2'],
  ['ip', 'meta iiftype 1', 'meta iiftype ether'],
  ['ip', 'meta oifgroup { 0, 1 }', 'oifgroup { "default", 1 }'],
  ['ip', 'meta skuid root', 'meta skuid 0'],
  ['ip', 'meta ipsec 0', 'meta ipsec missing'],
  ['ip', 'meta ibrname "br0"', 'ERROR Error: Could not process rule: Operation not supported'],
  ['ip', 'meta pkttype set broadcast', 'meta pkttype set broadcast'],
  ['ip', 'log group 1 prefix "x" snaplen 100', 'log prefix "x" group 1 snaplen 100'],
  [
    'ip',
    'log flags tcp sequence,options flags ip options',
    'log flags tcp sequence,options flags ip options',
  ],
  ['ip', 'reject with icmpx port-unreachable', 'ERROR Error: abstracted ICMP unreachable not supported'],
  ['inet', 'reject with icmp 3', 'reject with icmp port-unreachable'],
  ['inet', 'meta nfproto ipv4 reject', 'reject with icmp port-unreachable'],
  ['inet', 'reject with icmpx admin-prohibited', 'reject with icmpx admin-prohibited'],
  ['inet', 'reject with tcp reset', 'meta l4proto tcp reject with tcp reset'],
  ['ip', 'udp dport 53 reject with tcp reset', 'ERROR Error: you cannot use tcp reset with this protocol'],
  ['ip', 'tcp dport 22 snat to 10.0.0.0/24', 'tcp dport 22 snat to 10.0.0.0/24'],
  ['ip', 'jump nosuch', 'ERROR Error: No such file or directory; did you mean chain ‘c2’ in table ip ‘t’?'],
];

describe('nft 1.0.6 expressions: as nft lists them', () => {
  it.each(CASES)('%s: %s', (family, rule, expected) => {
    expect(listed(family, rule)).toBe(expected);
  });
});
