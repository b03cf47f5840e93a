// `nft monitor` (ruleset events, src/netfilter/nft/monitor-ruleset.ts): what each batch prints, in the kernel's
// order, against lines the real nft 1.0.6 printed on Linux 6.18 (the same cases run on the kernel in
// test/linux/nft-monitor.test.ts and nft-shared-table.test.ts); listings and failed batches print nothing.

import { describe, expect, it } from 'vitest';
import { restoreRuleset } from '../../../src/netfilter/iptables/restore.ts';
import { RulesetMonitor, runNft } from '../../../src/netfilter/nft/index.ts';
import { RulesetStore } from '../../../src/netfilter/ruleset.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec, spawn } from '../../../src/tools/exec.ts';

function watched() {
  const store = new RulesetStore();
  const monitor = new RulesetMonitor(store);
  const nft = (text: string) => runNft({ store }, text);
  return { store, monitor, nft };
}

describe('nft monitor', () => {
  it('prints a flush table reload: every chain emptied, the redeclared chain notified, then the new rules', () => {
    const { monitor, nft } = watched();
    nft('add table inet filter');
    nft('add chain inet filter input { type filter hook input priority filter; policy accept; }');
    nft('add rule inet filter input tcp dport 10250 drop');
    nft('add chain inet filter blocklist { type filter hook prerouting priority -150; policy accept; }');
    nft('add rule inet filter blocklist ip saddr 203.0.113.10 drop');
    nft(
      'flush table inet filter; add chain inet filter input { type filter hook input priority filter; policy accept; }; add rule inet filter input tcp dport 22 drop',
    );
    expect(monitor.stop().stdout).toBe(
      [
        'add table inet filter',
        '# new generation 2 by process 1000 (nft)',
        'add chain inet filter input { type filter hook input priority filter; policy accept; }',
        '# new generation 3 by process 1001 (nft)',
        'add rule inet filter input tcp dport 10250 drop',
        '# new generation 4 by process 1002 (nft)',
        'add chain inet filter blocklist { type filter hook prerouting priority mangle; policy accept; }',
        '# new generation 5 by process 1003 (nft)',
        'add rule inet filter blocklist ip saddr 203.0.113.10 drop',
        '# new generation 6 by process 1004 (nft)',
        'delete rule inet filter input handle 2',
        'delete rule inet filter blocklist handle 4',
        'add chain inet filter input { type filter hook input priority filter; policy accept; }',
        'add rule inet filter input tcp dport 22 drop',
        '# new generation 7 by process 1005 (nft)',
        '',
      ].join('\n'),
    );
  });

  it('a set and its elements one line each, and delete table in nft_flush_table order', () => {
    const { monitor, nft } = watched();
    nft('add table ip t');
    nft('add set ip t s { type ipv4_addr; elements = { 192.0.2.1, 192.0.2.2 }; }');
    nft('add chain ip t reg');
    nft('add rule ip t reg ip saddr @s counter accept');
    nft('delete table ip t');
    expect(
      monitor
        .stop()
        .stdout.split('\n')
        .filter((line) => !line.startsWith('#')),
    ).toEqual([
      'add table ip t',
      'add set ip t s { type ipv4_addr; } ',
      'add element ip t s { 192.0.2.1 }',
      'add element ip t s { 192.0.2.2 }',
      'add chain ip t reg',
      'add rule ip t reg ip saddr @s counter packets 0 bytes 0 accept',
      'delete rule ip t reg handle 3',
      'delete set ip t s',
      'delete chain ip t reg',
      'delete table ip t',
      '',
    ]);
  });

  it('listings and failed batches neither print nor advance the generation; stop() detaches', () => {
    const { store, monitor, nft } = watched();
    nft('list ruleset');
    expect(nft('delete table ip nothing').exitCode).not.toBe(0);
    nft('add table ip a');
    expect(monitor.stdout).toBe('add table ip a\n# new generation 2 by process 1000 (nft)\n');
    monitor.stop();
    nft('add table ip b');
    expect(monitor.stdout).toBe('add table ip a\n# new generation 2 by process 1000 (nft)\n');
    expect(store.watchers.size).toBe(0);
  });

  it("names iptables-restore's batches after its process", () => {
    const { store, monitor } = watched();
    restoreRuleset(store, '*filter\n:INPUT ACCEPT [0:0]\n-A INPUT -p tcp --dport 22 -j DROP\nCOMMIT\n', {
      counters: false,
      noflush: false,
      test: false,
      verbose: false,
      onlyTable: undefined,
    });
    expect(monitor.stop().stdout).toMatch(/# new generation \d+ by process \d+ \(iptables-restor\)\n$/);
  });

  it('runs in the background of a simulation: spawn(ns, "nft monitor")', () => {
    const sim = new Simulation({ seed: 1 });
    const ns = sim.addNamespace('n');
    const running = spawn(ns, 'nft monitor');
    if (!('stop' in running)) throw new Error(running.stderr);
    exec(ns, 'nft add table inet x');
    expect(running.stop().stdout).toBe('add table inet x\n# new generation 2 by process 1000 (nft)\n');
    expect(spawn(ns, 'nft monitor ruleset')).toMatchObject({ exitCode: 1 });
  });

  it('filters by operation and object, without generation lines; deleted and flushed elements are events', () => {
    const sim = new Simulation({ seed: 1 });
    const ns = sim.addNamespace('n');
    const filters = ['', 'rules', 'new', 'destroy', 'new rules', 'sets', 'elements', 'tables', 'chains'];
    const running = filters.map((filter) => {
      const monitor = spawn(ns, `nft monitor ${filter}`.trim());
      if (!('stop' in monitor)) throw new Error(monitor.stderr);
      return monitor;
    });
    for (const command of [
      'add table ip t',
      'add chain ip t c',
      'add rule ip t c accept',
      "add set ip t s '{ type ipv4_addr; }'",
      "add element ip t s '{ 1.1.1.1, 2.2.2.2 }'",
      "delete element ip t s '{ 1.1.1.1 }'",
      'flush set ip t s',
      'delete rule ip t c handle 2',
      'delete set ip t s',
      'delete chain ip t c',
      'delete table ip t',
    ])
      expect(exec(ns, `nft ${command}`).exitCode).toBe(0);
    // As nft 1.0.6 printed them on Linux 6.18 (generation numbers and pids aside).
    const [all, rules, added, destroyed, newRules, sets, elements, tables, chains] = running.map(
      (monitor) => monitor.stop().stdout,
    );
    expect(all).toContain('delete element ip t s { 1.1.1.1 }\n# new generation');
    expect(all).toContain('delete element ip t s { 2.2.2.2 }\n# new generation');
    expect(rules).toBe('add rule ip t c accept\ndelete rule ip t c handle 2\n');
    expect(added).toBe(
      'add table ip t\nadd chain ip t c\nadd rule ip t c accept\nadd set ip t s { type ipv4_addr; } \n' +
        'add element ip t s { 1.1.1.1 }\nadd element ip t s { 2.2.2.2 }\n',
    );
    expect(destroyed).toBe(
      'delete element ip t s { 1.1.1.1 }\ndelete element ip t s { 2.2.2.2 }\ndelete rule ip t c handle 2\n' +
        'delete set ip t s\ndelete chain ip t c\ndelete table ip t\n',
    );
    expect(newRules).toBe('add rule ip t c accept\n');
    expect(sets).toBe('add set ip t s { type ipv4_addr; } \ndelete set ip t s\n');
    expect(elements).toBe(
      'add element ip t s { 1.1.1.1 }\nadd element ip t s { 2.2.2.2 }\n' +
        'delete element ip t s { 1.1.1.1 }\ndelete element ip t s { 2.2.2.2 }\n',
    );
    expect(tables).toBe('add table ip t\ndelete table ip t\n');
    expect(chains).toBe('add chain ip t c\ndelete chain ip t c\n');
  });
});
