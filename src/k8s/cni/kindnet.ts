// kind's default CNI: kindnetd (routes to every other node's pod CIDR via its InternalIP, the KIND-MASQ-AGENT
// masquerade) and the ptp plugin it configures (a veth per pod, the gateway on each host end, a /32 host route).
// Not modelled: kindnetd's later network policies and DNS cache, IPv6, portmap.

import type { Command } from '../plan.ts';
import type { ClusterNetwork, Cni, NodeNetwork, PodSandbox } from './cni.ts';
import { configureIface, run, vethPair } from './commands.ts';
import { addressIn, mustParsePrefix } from './ipv4.ts';

export const MASQ_CHAIN = 'KIND-MASQ-AGENT';

/** masq.go: the jump (EnsureRule, appended) and the chain restored with --noflush. */
export function kindMasqRules(podNetwork: string): { jump: readonly string[]; restore: string } {
  const jump = [
    '-m',
    'comment',
    '--comment',
    `kind-masq-agent: ensure nat POSTROUTING directs all non-LOCAL destination traffic to our custom ${MASQ_CHAIN} chain`,
    '-m',
    'addrtype',
    '!',
    '--dst-type',
    'LOCAL',
    '-j',
    MASQ_CHAIN,
  ];
  const restore = [
    '*nat',
    `:${MASQ_CHAIN} - [0:0]`,
    `-A ${MASQ_CHAIN} -m comment --comment "kind-masq-agent: local traffic is not subject to MASQUERADE" -d ${podNetwork} -j RETURN`,
    `-A ${MASQ_CHAIN} -m comment --comment "ip-masq-agent: outbound traffic is subject to MASQUERADE (must be last in chain)" -j MASQUERADE`,
    'COMMIT',
    '',
  ].join('\n');
  return { jump, restore };
}

export class Kindnet implements Cni {
  readonly name = 'kindnet';

  /** kindnetd writes the default interface's MTU into the ptp configuration. */
  podMtu(cluster: ClusterNetwork): number {
    return cluster.underlayMtu;
  }

  /** masq.go SyncRules: EnsureChain, ensurePostroutingJump, then the chain through iptables-restore --noflush. */
  nodeAdded(node: NodeNetwork, cluster: ClusterNetwork): readonly Command[] {
    const rules = kindMasqRules(cluster.podNetwork);
    return [
      run(node.ns, 'iptables', '-t', 'nat', '-N', MASQ_CHAIN),
      run(node.ns, 'iptables', '-t', 'nat', '-A', 'POSTROUTING', ...rules.jump),
      { ns: node.ns, argv: ['iptables-restore', '--noflush'], stdin: rules.restore },
    ];
  }

  /** routes.go syncRoute: RouteAdd {Dst: the peer's pod CIDR, Gw: its InternalIP}; the kernel picks eth0. */
  peerAdded(node: NodeNetwork, peer: NodeNetwork): readonly Command[] {
    return [run(node.ns, 'ip', 'route', 'add', peer.podCidr, 'via', peer.address)];
  }

  /** kindnetd of kind v0.24 never deletes a departed node's route; we do, so a removed node leaves nothing behind. */
  peerRemoved(node: NodeNetwork, peer: NodeNetwork): readonly Command[] {
    return [run(node.ns, 'ip', 'route', 'del', peer.podCidr, 'via', peer.address)];
  }

  /**
   * ptp.go cmdAdd: setupContainerVeth (the pair; ConfigureIface with host-local's default route; the /24 kernel
   * route replaced by a link route to the gateway and the subnet via the gateway, both with the pod's source), then
   * setupHostVeth (the gateway as /32 on the host end, a scope host route to the pod's /32).
   */
  podAdded(node: NodeNetwork, pod: PodSandbox, cluster: ClusterNetwork): readonly Command[] {
    const cidr = mustParsePrefix(node.podCidr);
    const gateway = addressIn(cidr, 1);
    return [
      ...vethPair({
        podNs: pod.ns,
        nodeNs: node.ns,
        ifname: 'eth0',
        hostVeth: pod.hostVeth,
        mtu: this.podMtu(cluster),
        podMac: pod.podMac,
        hostMac: pod.hostMac,
      }),
      ...configureIface({
        podNs: pod.ns,
        ifname: 'eth0',
        address: pod.address,
        prefixLength: cidr.prefixLength,
        gateway,
        routes: ['0.0.0.0/0'],
      }),
      run(pod.ns, 'ip', 'route', 'del', node.podCidr, 'dev', 'eth0'),
      run(pod.ns, 'ip', 'route', 'add', gateway, 'dev', 'eth0', 'scope', 'link', 'src', pod.address),
      run(pod.ns, 'ip', 'route', 'add', node.podCidr, 'via', gateway, 'dev', 'eth0', 'src', pod.address),
      run(node.ns, 'ip', 'addr', 'add', `${gateway}/32`, 'dev', pod.hostVeth),
      run(node.ns, 'ip', 'route', 'add', pod.address, 'dev', pod.hostVeth, 'scope', 'host'),
    ];
  }

  /** ptp.go cmdDel: the container's eth0 goes; the host end, its address and the host route go with it. */
  podRemoved(_node: NodeNetwork, pod: PodSandbox): readonly Command[] {
    return [run(pod.ns, 'ip', 'link', 'del', 'eth0')];
  }
}
