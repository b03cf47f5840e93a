// The worlds `packetlab shell NAME` opens: each scenario's machines as they stand before (or, for the incident, in
// the middle of) its story, for a student to type the lesson's commands on. Nothing is run for them: the cluster is
// settled, the pods are Running and kube-proxy has synced.

import { lessonTopology, type NodeWiring, type PodWiring } from '../src/k8s/lesson.ts';
import { Simulation } from '../src/netns/simulation.ts';
import type { ShellWorld } from '../src/story/shell-session.ts';
import { clusterWorld, namespacesWorld } from '../src/story/shell-worlds.ts';
import {
  FORMATION_CNIS,
  FORMATION_PROXIES,
  type FormationCni,
  type FormationProxy,
  formation,
} from './formation-cluster.ts';
import { incidentCluster } from './incident-cluster.ts';
import { LESSON_CASES } from './lesson-cluster.ts';
import { trafficLab } from './traffic.ts';
import { twoNamespaces } from './two-namespaces.ts';

export interface ShellOpen {
  readonly seed: string | undefined;
  readonly args: readonly string[];
}

export type ShellOpened = ShellWorld | { readonly usage: string };

const TRY_CLUSTER =
  'Try: kubectl get pods -o wide, docker exec formation-worker ip route, kubectl exec diag -- ping -c 1 10.244.2.7. Type help.';

function cniAndProxy(
  cni: string,
  kubeProxy: string,
): { cni: FormationCni; kubeProxy: FormationProxy } | undefined {
  if (
    !FORMATION_CNIS.includes(cni as FormationCni) ||
    !FORMATION_PROXIES.includes(kubeProxy as FormationProxy)
  )
    return undefined;
  return { cni: cni as FormationCni, kubeProxy: kubeProxy as FormationProxy };
}

/** `packetlab shell lesson-case [1-6] [CNI] [MODE]`: the formation cluster every case starts from. */
export function lessonCaseShell({ seed, args }: ShellOpen): ShellOpened {
  const [which = '1', cni = 'kindnet', kubeProxy = 'iptables'] = args;
  const chosen = cniAndProxy(cni, kubeProxy);
  if (args.length > 3 || !LESSON_CASES.includes(Number(which) as 1) || chosen === undefined)
    return { usage: 'usage: packetlab shell lesson-case [1-6] [flannel-vxlan|kindnet] [iptables|nftables]' };
  const { c } = formation({ ...chosen, seed: seed ?? 'formation' });
  return clusterWorld(
    c,
    `kind cluster formation (${chosen.cni}, kube-proxy ${chosen.kubeProxy}), as case ${which} starts. ${TRY_CLUSTER}\n`,
  );
}

/** `packetlab shell tour`: the tour's cluster (flannel VXLAN, kube-proxy iptables), as its first case starts. */
export function tourShell({ seed, args }: ShellOpen): ShellOpened {
  if (args.length > 0) return { usage: 'usage: packetlab shell tour' };
  return lessonCaseShell({ seed, args: ['1', 'flannel-vxlan', 'iptables'] });
}

/** `packetlab shell incident [CNI] [MODE]`: right after the upgrade that broke NodePort 30080. */
export function incidentShell({ seed, args }: ShellOpen): ShellOpened {
  const [cni = 'kindnet', kubeProxy = 'iptables'] = args;
  const chosen = cniAndProxy(cni, kubeProxy);
  if (args.length > 2 || chosen === undefined)
    return { usage: 'usage: packetlab shell incident [kindnet|flannel-vxlan] [iptables|nftables]' };
  const c = incidentCluster({ ...chosen, seed: seed ?? 'incident' });
  return clusterWorld(
    c,
    `kind cluster formation (${chosen.cni}, kube-proxy ${chosen.kubeProxy}) just after Netbird v0.30 rolled onto every node: ` +
      'curl -s -m 2 http://172.18.0.3:30080/sante times out, on 172.18.0.4 it answers. Find out why. Type help.\n',
  );
}

/** `packetlab shell lesson [bridge|routed] [vxlan|direct]`: the lesson's cases 1 and 2 as plain namespaces. */
export function lessonShell({ seed, args }: ShellOpen): ShellOpened {
  const [pods = 'bridge', nodes = 'vxlan'] = args;
  if (
    args.length > 2 ||
    (pods !== 'bridge' && pods !== 'routed') ||
    (nodes !== 'vxlan' && nodes !== 'direct')
  )
    return { usage: 'usage: packetlab shell lesson [bridge|routed] [vxlan|direct]' };
  const lesson = lessonTopology({
    pods: pods as PodWiring,
    nodes: nodes as NodeWiring,
    seed: seed ?? 'lesson',
  });
  return namespacesWorld(
    lesson.sim,
    `the lesson's nodes and pods as namespaces (pods on ${pods === 'bridge' ? 'a bridge' : 'routes'}, nodes over ${nodes}). ` +
      'Try: ip netns exec diag ping -c 1 10.244.2.7. Type help.\n',
  );
}

/** `packetlab shell veth`: namespaces a and b joined by a veth pair. */
export function vethShell({ seed, args }: ShellOpen): ShellOpened {
  if (args.length > 0) return { usage: 'usage: packetlab shell veth' };
  const sim = new Simulation({ seed: seed ?? 'packetlab' });
  twoNamespaces(sim);
  return namespacesWorld(
    sim,
    'namespaces a (10.0.0.1 on veth-a) and b (10.0.0.2 on veth-b), one veth pair. Try: ip netns exec a ping -c 2 10.0.0.2. Type help.\n',
  );
}

/** `packetlab shell traffic`: diag and signalements (HTTP on 8000) on one veth, no delay added yet. */
export function trafficShell({ seed, args }: ShellOpen): ShellOpened {
  if (args.length > 0) return { usage: 'usage: packetlab shell traffic' };
  const sim = new Simulation({ seed: seed ?? 'traffic' });
  trafficLab(sim);
  return namespacesWorld(
    sim,
    'diag (10.244.1.5) and signalements (10.244.1.9, HTTP on 8000: /sante, /rapport) on one veth. ' +
      'Try: ip netns exec diag curl -s http://10.244.1.9:8000/sante. Type help.\n',
  );
}
