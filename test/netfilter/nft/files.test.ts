// Whole files loaded with `nft -f` print as `nft list ruleset` printed them on the real kernel (fixtures/*.nft and
// *.list): kube-proxy's nftables mode, the incident's trace table, a mark workaround, sets and maps. Also
// iptables-restore input through the iptables front end, listed in nft syntax as iptables-nft rules are.

import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { restoreRuleset } from '../../../src/netfilter/iptables/restore.ts';
import { formatPriority, runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';

const here = dirname(fileURLToPath(import.meta.url));
const fixture = (name: string): string => readFileSync(join(here, 'fixtures', name), 'utf8');

describe('nft -f then nft list ruleset', () => {
  it.each([
    'kube-proxy',
    'incident',
    'workaround',
    'trace-setup',
    'sets',
    'set-options',
    'kube-proxy-overall',
    'intervals',
    'set-declarations',
  ])('%s', (name) => {
    const netfilter = { store: new RulesetStore() };
    const loaded = runNft(netfilter, fixture(`${name}.nft`), { file: `${name}.nft` });
    expect(loaded.stderr).toBe('');
    expect(loaded.exitCode).toBe(0);
    expect(runNft(netfilter, 'list ruleset').stdout).toBe(fixture(`${name}.list`));
  });

  it('prints what it parsed back into the same ruleset (print(parse(print(x))) == print(x))', () => {
    for (const name of [
      'kube-proxy',
      'workaround',
      'trace-setup',
      'sets',
      'set-options',
      'kube-proxy-overall',
      'set-declarations',
    ]) {
      const first = { store: new RulesetStore() };
      runNft(first, fixture(`${name}.nft`), { file: 'a.nft' });
      const listed = runNft(first, 'list ruleset').stdout;
      const second = { store: new RulesetStore() };
      expect(runNft(second, listed, { file: 'b.nft' }).stderr).toBe('');
      expect(runNft(second, 'list ruleset').stdout).toBe(listed);
    }
  });

  it('loads the incident commands one by one as the seed types them', () => {
    const netfilter = { store: new RulesetStore() };
    for (const line of [
      'add table inet debug',
      'add chain inet debug trace { type filter hook prerouting priority -301; }',
      'add rule inet debug trace tcp dport 30080 meta nftrace set 1',
    ])
      expect(runNft(netfilter, line)).toEqual({ stdout: '', stderr: '', exitCode: 0 });
    expect(runNft(netfilter, 'list ruleset').stdout).toBe(fixture('incident.list'));
  });
});

describe('iptables-nft rules in nft list ruleset', () => {
  it.each(['iptables-kube', 'iptables-misc'])('%s', (name) => {
    const store = new RulesetStore();
    const restored = restoreRuleset(store, fixture(`${name}.rules`), {
      counters: false,
      noflush: false,
      test: false,
      verbose: false,
      onlyTable: undefined,
    });
    expect(restored.stderr).toBe('');
    const listed = runNft({ store }, 'list ruleset');
    expect(listed.stdout).toBe(fixture(`${name}.list`));
    expect(listed.stderr).toMatch(/^# Warning: table ip nat is managed by iptables-nft, do not touch!\n/m);
  });
});

describe('named priorities (rule.c: prio2str, checked on the real kernel for every hook)', () => {
  it.each([
    ['prerouting', -301, 'raw - 1'],
    ['prerouting', -310, 'raw - 10'],
    ['prerouting', -311, '-311'],
    ['prerouting', -110, 'dstnat - 10'],
    ['prerouting', -90, 'dstnat + 10'],
    ['output', -100, '-100'],
    ['input', -110, '-110'],
    ['input', 100, '100'],
    ['postrouting', 100, 'srcnat'],
    ['postrouting', 95, 'srcnat - 5'],
    ['forward', 50, 'security'],
    ['output', -150, 'mangle'],
    ['input', 0, 'filter'],
    ['input', 11, '11'],
  ] as const)('%s %d is %s', (hook, priority, text) => {
    expect(formatPriority(hook, priority)).toBe(text);
  });
});
