// Memory smoke test of the shared ruleset: many nodes load kube-proxy's iptables ruleset through the real path (the
// first sync's commands, `iptables-restore --noflush --counters`); identical chains compile to one program object
// (chain-program.ts), each node keeps its own rule records and counters, and a change on one node is its own
// (copy-on-write). Structural assertions only: object identity and printed counters, never time or heap size.

import { describe, expect, it } from 'vitest';
import { buildView } from '../../../../bench/support/kube-view.ts';
import { IptablesProxier } from '../../../../src/k8s/kube-proxy/iptables/proxier.ts';
import { type ChainProgram, programOf } from '../../../../src/netfilter/chain-program.ts';
import type { Chain } from '../../../../src/netfilter/ir.ts';
import type { Namespace } from '../../../../src/netns/namespace.ts';
import { Simulation } from '../../../../src/netns/simulation.ts';
import { exec, runArgv } from '../../../../src/tools/exec.ts';

const NODES = 200;
// 200 x 1k (the example) takes about 30 s of CPU: 300 Services keep the same structure for CI.
const SERVICES = 300;

function chainsOf(ns: Namespace): Map<string, Chain> {
  const chains = new Map<string, Chain>();
  for (const table of ns.netfilter.store.ruleset.tables)
    for (const [name, chain] of table.chains) chains.set(`${table.name} ${name}`, chain);
  return chains;
}

describe(`kube-proxy's iptables ruleset on ${NODES} nodes x ${SERVICES} Services`, () => {
  const view = buildView({ services: SERVICES, nodes: 10 });
  const proxier = new IptablesProxier();
  const sim = new Simulation();
  const nodes: Namespace[] = [];
  for (let i = 0; i < NODES; i++) {
    const ns = sim.addNamespace(`node-${i}`);
    for (const command of proxier.sync(`node-${i}`, view, true)) {
      const argv = command.argv.map((word) => (typeof word === 'string' ? word : ''));
      const result = runArgv(ns, argv, command.stdin ?? '');
      if (result.exitCode !== 0) throw new Error(result.stderr);
    }
    nodes.push(ns);
  }

  it('compiles identical chains once: one program object per chain content for every node', () => {
    const first = chainsOf(nodes[0]!);
    expect(first.get('nat KUBE-SERVICES')!.rules.length).toBeGreaterThan(SERVICES);
    // Node 0's programs: one per distinct content (its empty chains, for one, share the empty program).
    const own = new Set([...first.values()].map((chain) => programOf(chain.rules)));
    const programs = new Set<ChainProgram>();
    // Plain checks collected per node (millions of expect calls would take minutes): what differs, by chain.
    const wrong: string[] = [];
    for (const ns of nodes) {
      const chains = chainsOf(ns);
      expect([...chains.keys()]).toEqual([...first.keys()]);
      for (const [name, chain] of chains) {
        const twin = first.get(name)!;
        // Each node's own chain and rule records (its handles and counters)...
        if (ns !== nodes[0]) {
          if (chain === twin || chain.rules === twin.rules) wrong.push(`${ns.name} ${name}: the same chain`);
          if (chain.rules.length > 0 && chain.rules[0] === twin.rules[0])
            wrong.push(`${ns.name} ${name}: the same rule`);
        }
        // ...over the same expressions and the same compiled program.
        if (chain.rules.some((rule, i) => rule.exprs !== twin.rules[i]?.exprs))
          wrong.push(`${ns.name} ${name}: other expressions`);
        const program = programOf(chain.rules);
        if (program !== programOf(twin.rules)) wrong.push(`${ns.name} ${name}: another program`);
        programs.add(program);
      }
    }
    expect(wrong).toEqual([]);
    expect(programs.size).toBe(own.size);
    expect(own.size).toBeGreaterThan(first.size / 2);
  });

  it("keeps each node's counters and changes its own (copy-on-write)", () => {
    const [a, b, c] = [nodes[1]!, nodes[2]!, nodes[3]!];
    const listed = exec(c, 'iptables -t nat -L KUBE-SERVICES -v -n -x').stdout;
    const saved = exec(c, 'iptables-save -c').stdout;
    const nftListed = exec(c, 'nft list table ip nat').stdout;
    const before = programOf(chainsOf(c).get('nat KUBE-MARK-MASQ')!.rules);

    // Counters restored on a: a's listing shows them, c's does not.
    const restored = exec(a, 'iptables-restore --noflush --counters', {
      stdin:
        '*nat\n:KUBE-MARK-MASQ - [0:0]\n[7:420] -A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000\nCOMMIT\n',
    });
    expect(restored.exitCode, restored.stderr).toBe(0);
    expect(exec(a, 'iptables -t nat -L KUBE-MARK-MASQ -v -n -x').stdout).toMatch(/^ +7 +420 MARK/m);
    expect(exec(a, 'iptables-save -t nat -c').stdout).toContain('[7:420] -A KUBE-MARK-MASQ');
    expect(exec(a, 'nft list chain ip nat KUBE-MARK-MASQ').stdout).toContain('counter packets 7 bytes 420');
    // The same expressions: still the one program (counters live in the node's rule records, not in it).
    expect(programOf(chainsOf(a).get('nat KUBE-MARK-MASQ')!.rules)).toBe(before);

    // A rule appended on b: b's chain gets a new program, the others keep the one they share.
    const services = chainsOf(b).get('nat KUBE-SERVICES')!;
    const shared = programOf(services.rules);
    expect(exec(b, 'iptables -t nat -A KUBE-SERVICES -d 10.0.0.1/32 -j RETURN').exitCode).toBe(0);
    const changed = chainsOf(b).get('nat KUBE-SERVICES')!;
    expect(programOf(changed.rules)).not.toBe(shared);
    expect(programOf(chainsOf(c).get('nat KUBE-SERVICES')!.rules)).toBe(shared);
    expect(exec(b, 'iptables-save -t nat').stdout).toContain('-A KUBE-SERVICES -d 10.0.0.1/32 -j RETURN');

    // c saw none of it.
    expect(exec(c, 'iptables -t nat -L KUBE-SERVICES -v -n -x').stdout).toBe(listed);
    expect(exec(c, 'iptables-save -c').stdout).toBe(saved);
    expect(exec(c, 'nft list table ip nat').stdout).toBe(nftListed);
    expect(programOf(chainsOf(c).get('nat KUBE-MARK-MASQ')!.rules)).toBe(before);
  });
});
