// Untrusted nft input is data: random text, token soup and mutated real files never make the parser, the
// evaluator or the printer throw, and input that fails leaves the ruleset exactly as it was.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packetFields, printRuleset, runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';

const here = dirname(fileURLToPath(import.meta.url));
const baseline = readFileSync(join(here, 'fixtures', 'baseline.nft'), 'utf8');
const kubeProxy = readFileSync(join(here, 'fixtures', 'kube-proxy.nft'), 'utf8');

function loaded(): { store: RulesetStore } {
  const netfilter = { store: new RulesetStore() };
  runNft(netfilter, baseline, { file: 'baseline.nft' });
  return netfilter;
}

/** Runs `text` as a file and as a command line; a failure must leave the very same ruleset object. */
function check(netfilter: { store: RulesetStore }, text: string): void {
  for (const options of [{ file: 'fuzz.nft' }, {}, { file: 'fuzz.nft', check: true }]) {
    const before = netfilter.store.ruleset;
    const result = runNft(netfilter, text, options);
    if (result.exitCode !== 0) {
      expect(result.stderr).toMatch(/Error: /);
      expect(netfilter.store.ruleset).toBe(before);
    }
    expect(() => printRuleset(netfilter.store.ruleset, { handles: true })).not.toThrow();
  }
}

const WORDS = [
  'add',
  'create',
  'insert',
  'replace',
  'delete',
  'flush',
  'list',
  'table',
  'chain',
  'rule',
  'set',
  'map',
  'element',
  'ruleset',
  'ip',
  'inet',
  'ip6',
  'filter',
  'kube-proxy',
  'input',
  'services',
  'sub',
  'type',
  'hook',
  'priority',
  'policy',
  'accept',
  'drop',
  'jump',
  'goto',
  'return',
  'continue',
  'queue',
  'counter',
  'packets',
  'bytes',
  'meta',
  'mark',
  'set',
  'ct',
  'state',
  'status',
  'original',
  'reply',
  'saddr',
  'daddr',
  'tcp',
  'udp',
  'th',
  'sport',
  'dport',
  'flags',
  'icmp',
  'fib',
  'numgen',
  'random',
  'mod',
  'offset',
  'vmap',
  'dnat',
  'snat',
  'masquerade',
  'redirect',
  'to',
  'fully-random',
  'persistent',
  'reject',
  'with',
  'reset',
  'log',
  'prefix',
  'level',
  'notrack',
  'comment',
  'handle',
  'and',
  'or',
  'xor',
  'elements',
  'interval',
  'ipv4_addr',
  'inet_service',
  'inet_proto',
  'verdict',
  'established,related',
  'new',
  'syn',
  'local',
  'dstnat',
  'srcnat',
  'raw',
  'nftrace',
  'iifname',
  'oifname',
  'l4proto',
  'cluster-ips',
  'service-ips',
  '@service-ips',
  '@nope',
  'prerouting',
  'postrouting',
  'forward',
  'output',
  '10.0.0.1',
  '10.0.0.0/8',
  '1.2.3.4-1.2.3.9',
  '80',
  '0x4000',
  '-301',
  '30080',
  '65536',
  '"eth0"',
  '"x y"',
  '"',
  'eth*',
  '{',
  '}',
  '(',
  ')',
  ':',
  ',',
  '.',
  ';',
  '\n',
  '==',
  '!=',
  '<',
  '>=',
  '&',
  '|',
  '^',
  '!',
  '/',
  '-',
  '+',
  '@',
  '$',
  '*',
  '=',
  '#',
  '~',
  '\\',
  '\t',
];

describe('nft never throws on bad input', () => {
  it('random text', () => {
    const netfilter = loaded();
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii', maxLength: 200 }), (text) => check(netfilter, text)),
      { numRuns: 300 },
    );
  });

  it('token soup', () => {
    const netfilter = loaded();
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...WORDS), { maxLength: 40 }), (words) =>
        check(netfilter, words.join(' ')),
      ),
      { numRuns: 1500 },
    );
  });

  it('real files with characters cut out or doubled', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: kubeProxy.length - 1 }), fc.boolean()), {
          minLength: 1,
          maxLength: 4,
        }),
        (edits) => {
          let text = kubeProxy;
          for (const [at, cut] of edits)
            text = cut
              ? text.slice(0, at) + text.slice(at + 1)
              : text.slice(0, at) + text[at] + text.slice(at);
          check({ store: new RulesetStore() }, text);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('trace packet decoding takes any bytes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 80 }),
        fc.option(fc.uint8Array({ maxLength: 20 }), { nil: undefined }),
        fc.boolean(),
        (network, linkHeader, withIif) => {
          const fields = packetFields(
            { iifname: withIif ? 'eth0' : undefined, oifname: 'eth1', mark: 0, linkHeader, network },
            withIif ? 'inet' : 'ip',
          );
          expect(Array.isArray(fields)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
