// The lesson's cases 3 to 6 and the incident on top of cases 1-2: kube-proxy's iptables rules for the Service
// signalements on both nodes, ip-masq-agent's egress MASQUERADE, and an outside client on the Docker network.

import type { Namespace } from '../src/netns/namespace.ts';
import { exec } from '../src/tools/exec.ts';
import { kubeProxyNatRules, type ServiceSpec, SIGNALEMENTS } from './kube-proxy-iptables.ts';
import { buildLesson, type Lesson, type LessonOptions, must } from './lesson-topology.ts';

export interface ServicesLesson extends Lesson {
  /** A machine outside the cluster on the nodes' network (172.18.0.100). */
  readonly client: Namespace;
}

/** ip-masq-agent's rule: pods talking to anything outside the pod network leave with the node's address. */
export const MASQ_AGENT_RULES = `*nat
:IP-MASQ-AGENT - [0:0]
-A POSTROUTING -m comment --comment "ip-masq-agent: ensure nat POSTROUTING directs all non-LOCAL destination traffic to our custom IP-MASQ-AGENT chain" -m addrtype ! --dst-type LOCAL -j IP-MASQ-AGENT
-A IP-MASQ-AGENT -d 10.244.0.0/16 -m comment --comment "ip-masq-agent: local traffic is not subject to MASQUERADE" -j RETURN
-A IP-MASQ-AGENT -m comment --comment "ip-masq-agent: outbound traffic is subject to MASQUERADE (must be last in chain)" -j MASQUERADE
COMMIT
`;

export function buildServices(
  options: LessonOptions & { services?: readonly ServiceSpec[] } = {},
): ServicesLesson {
  const lesson = buildLesson({ pods: 'bridge', nodes: 'vxlan', ...options });
  const rules = kubeProxyNatRules(options.services ?? [SIGNALEMENTS]);
  for (const node of [lesson.w1, lesson.w2]) {
    for (const input of [rules, MASQ_AGENT_RULES]) {
      const result = exec(node, 'iptables-restore --noflush', { stdin: input });
      if (result.exitCode !== 0) throw new Error(`${node.name}: iptables-restore: ${result.stderr}`);
    }
  }
  const client = lesson.sim.addNamespace('client');
  must(client, 'ip link set lo up');
  lesson.segment.attach(client, 'eth0');
  must(client, 'ip addr add 172.18.0.100/16 dev eth0');
  return { ...lesson, client };
}
