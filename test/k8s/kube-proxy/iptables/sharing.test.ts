// kube-proxy's iptables ruleset on many nodes: each distinct node view is rendered once (RenderCache), each restore
// line is parsed and compiled once for every namespace (RestoreLineCache), while every node keeps its own rules,
// handles and counters, and a change on one node leaves the others as they were.

import { describe, expect, it } from 'vitest';
import { buildCluster } from '../../../../bench/support/kube-cluster.ts';
import { IptablesProxier } from '../../../../src/k8s/kube-proxy/iptables/proxier.ts';
import { viewFingerprint } from '../../../../src/k8s/kube-proxy/iptables/render-cache.ts';
import type { Command } from '../../../../src/k8s/plan.ts';
import { restoreLineCache } from '../../../../src/netfilter/iptables/line-cache.ts';
import type { Chain } from '../../../../src/netfilter/ir.ts';
import type { Namespace } from '../../../../src/netns/namespace.ts';
import { Simulation } from '../../../../src/netns/simulation.ts';
import { exec, runArgv } from '../../../../src/tools/exec.ts';

function load(ns: Namespace, commands: readonly Command[]): void {
  for (const command of commands) {
    const argv = command.argv.map((word) => (typeof word === 'string' ? word : ''));
    const result = runArgv(ns, argv, command.stdin ?? '');
    expect(result.exitCode, result.stderr).toBe(0);
  }
}

function chainsOf(ns: Namespace): Map<string, Chain> {
  const chains = new Map<string, Chain>();
  for (const table of ns.netfilter.store.ruleset.tables)
    for (const [name, chain] of table.chains) chains.set(`${table.name} ${name}`, chain);
  return chains;
}

/** The restore text of a sync (its last command). */
const textOf = (commands: readonly Command[]): string => commands[commands.length - 1]!.stdin!;

describe('kube-proxy rules shared across nodes', () => {
  const cluster = buildCluster({ nodes: 6, services: 60 });

  it('renders once per distinct node view, and the shared text is the one each node would get', () => {
    const proxier = new IptablesProxier();
    const texts = cluster.views.map((view, i) => textOf(proxier.sync(`node-${i}`, view, true)));
    const keys = new Set(cluster.views.map((view) => viewFingerprint(view, new Set())));
    expect(proxier.renders.misses).toBe(keys.size);
    expect(proxier.renders.hits).toBe(cluster.views.length - keys.size);
    expect(keys.size).toBeLessThan(cluster.views.length);
    cluster.views.forEach((view, i) => {
      const fresh = new IptablesProxier();
      expect(textOf(fresh.sync(`node-${i}`, view, true))).toBe(texts[i]);
    });
  });

  it('a change to the Services misses the cache', () => {
    const proxier = new IptablesProxier();
    const view = cluster.views[0]!;
    const before = proxier.render(view);
    const fewer = { ...view, services: view.services.slice(1) };
    expect(proxier.render(fewer)).not.toBe(before);
    expect(proxier.renders.misses).toBe(2);
  });

  it('two nodes loading the same ruleset share every compiled rule, with their own rule records', () => {
    const sim = new Simulation();
    const proxier = new IptablesProxier();
    const [a, b] = [sim.addNamespace('node-a'), sim.addNamespace('node-b')];
    load(a, proxier.sync('node-a', cluster.views[1]!, true));
    load(b, proxier.sync('node-b', cluster.views[1]!, true));
    const chainsA = chainsOf(a);
    const chainsB = chainsOf(b);
    expect([...chainsB.keys()]).toEqual([...chainsA.keys()]);
    let shared = 0;
    for (const [name, chain] of chainsA) {
      const other = chainsB.get(name)!;
      expect(other).not.toBe(chain);
      expect(other.rules.length).toBe(chain.rules.length);
      chain.rules.forEach((rule, i) => {
        const twin = other.rules[i]!;
        expect(twin).not.toBe(rule);
        expect(twin.handle).toBe(rule.handle);
        // The restore lines are interned: the same expressions and saved form. The first sync's own `-I`
        // jump rules are separate iptables commands, compiled per node.
        if (twin.exprs === rule.exprs) {
          expect(twin.iptables).toBe(rule.iptables);
          shared++;
        }
      });
    }
    const total = [...chainsA.values()].reduce((sum, chain) => sum + chain.rules.length, 0);
    expect(shared).toBeGreaterThan(total - 20);
    // One rule shape for every rule: the fields in one order.
    for (const chain of chainsA.values())
      for (const rule of chain.rules)
        expect(Object.keys(rule)).toEqual(['handle', 'exprs', 'comment', 'iptables', 'packets', 'bytes']);
  });

  it('counters and changes stay per node', () => {
    const sim = new Simulation();
    const proxier = new IptablesProxier();
    const [a, b] = [sim.addNamespace('node-a'), sim.addNamespace('node-b')];
    load(a, proxier.sync('node-a', cluster.views[2]!, true));
    load(b, proxier.sync('node-b', cluster.views[2]!, true));
    const savedA = exec(a, 'iptables-save -c').stdout;
    const listedA = exec(a, 'iptables -t nat -L -v -n -x').stdout;
    expect(exec(b, 'iptables-save -c').stdout).toBe(savedA);

    // Counters restored on b only (the same line, so the same interned rule, but b's own record).
    const line = '[7:420] -A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000';
    const restored = exec(b, 'iptables-restore --noflush --counters', {
      stdin: `*nat\n:KUBE-MARK-MASQ - [0:0]\n${line}\nCOMMIT\n`,
    });
    expect(restored.exitCode).toBe(0);
    expect(exec(b, 'iptables -t nat -L KUBE-MARK-MASQ -v -n -x').stdout).toMatch(/^ +7 +420 MARK/m);
    expect(exec(a, 'iptables -t nat -L -v -n -x').stdout).toBe(listedA);
    const masqA = chainsOf(a).get('nat KUBE-MARK-MASQ')!.rules[0]!;
    const masqB = chainsOf(b).get('nat KUBE-MARK-MASQ')!.rules[0]!;
    expect(masqB.exprs).toBe(masqA.exprs);
    expect([masqA.packets, masqB.packets]).toEqual([0, 7]);

    // `iptables -A` on b changes b only.
    expect(exec(b, 'iptables -t nat -A KUBE-SERVICES -d 10.0.0.1/32 -j RETURN').exitCode).toBe(0);
    expect(exec(b, 'iptables-save -t nat').stdout).toContain('-A KUBE-SERVICES -d 10.0.0.1/32 -j RETURN');
    expect(exec(a, 'iptables-save -c').stdout).toBe(savedA);
    expect(exec(a, 'iptables -t nat -L -v -n -x').stdout).toBe(listedA);
    expect(exec(a, 'nft list ruleset').stdout).not.toContain('10.0.0.1');
  });

  it("a node's iptables-save prints the full ruleset, as a node loaded alone would", () => {
    const sim = new Simulation();
    const proxier = new IptablesProxier();
    cluster.views.forEach((view, i) => {
      load(sim.addNamespace(`node-${i}`), proxier.sync(`node-${i}`, view, true));
    });
    const last = cluster.views.length - 1;
    const ns = sim.namespace(`node-${last}`);
    const saved = exec(ns, 'iptables-save').stdout;
    const text = new IptablesProxier().render(cluster.views[last]!);

    // Every chain of the text, and as many rules in each as the text appends.
    const appended = new Map<string, number>();
    for (const line of text.split('\n')) {
      const chain = /^:(\S+)/.exec(line)?.[1];
      if (chain !== undefined) expect(saved).toContain(`:${chain} - [0:0]\n`);
      const to = /^-A (\S+)/.exec(line)?.[1];
      if (to !== undefined) appended.set(to, (appended.get(to) ?? 0) + 1);
    }
    for (const [chain, count] of appended)
      if (chain.startsWith('KUBE-SVC-') || chain.startsWith('KUBE-SEP-') || chain === 'KUBE-SERVICES')
        expect(saved.split('\n').filter((line) => line.startsWith(`-A ${chain} `)).length).toBe(count);

    // The same commands in a process that never saw these lines: the same iptables-save, -L -v and nft listing.
    restoreLineCache.clear();
    const alone = new Simulation().addNamespace(`node-${last}`);
    load(alone, new IptablesProxier().sync(`node-${last}`, cluster.views[last]!, true));
    expect(exec(alone, 'iptables-save').stdout).toBe(saved);
    expect(exec(alone, 'iptables -L -v -n').stdout).toBe(exec(ns, 'iptables -L -v -n').stdout);
    expect(exec(alone, 'nft list ruleset').stdout).toBe(exec(ns, 'nft list ruleset').stdout);
  });
});
