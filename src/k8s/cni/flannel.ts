// Flannel on kind: flanneld's backends (vxlan: flannel.1 and, per remote node, an onlink route, a permanent
// neighbour and an FDB entry; host-gw: a route via each remote node) and its CNI plugin delegating to the bridge
// plugin. Not modelled: flanneld's own iptables rules (FLANNEL-POSTRTG, FLANNEL-FWD), DirectRouting, IPv6.

import type { Command } from '../plan.ts';
import { bridgeAdd, bridgeDel } from './bridge-plugin.ts';
import type { ClusterNetwork, Cni, NodeNetwork, PodSandbox } from './cni.ts';
import { run } from './commands.ts';
import { addressIn, mustParsePrefix } from './ipv4.ts';

/** vxlan.go: `flannel.<VNI>`, VNI 1 and Linux's port 8472 by default. */
export const FLANNEL_VNI = 1;
export const FLANNEL_DEVICE = `flannel.${FLANNEL_VNI}`;
export const FLANNEL_PORT = 8472;
/** vxlan_network.go encapOverhead. */
const ENCAP_OVERHEAD = 50;

/** What both backends share: the bridge plugin with a node's cni0 created on its first pod. */
abstract class FlannelCni implements Cni {
  abstract readonly name: string;
  private readonly bridged = new Set<string>();

  abstract podMtu(cluster: ClusterNetwork): number;
  abstract peerAdded(node: NodeNetwork, peer: NodeNetwork, cluster: ClusterNetwork): readonly Command[];
  abstract peerRemoved(node: NodeNetwork, peer: NodeNetwork, cluster: ClusterNetwork): readonly Command[];

  /** flanneld at start: the backend's devices, then its iptables rules (--ip-masq, as kube-flannel.yml runs it). */
  nodeAdded(node: NodeNetwork, cluster: ClusterNetwork): readonly Command[] {
    return [...this.backendAdded(node), ...flannelRules(node, cluster)];
  }

  protected abstract backendAdded(node: NodeNetwork): readonly Command[];

  nodeRemoved(node: NodeNetwork): readonly Command[] {
    this.bridged.delete(node.ns);
    return [];
  }

  podAdded(node: NodeNetwork, pod: PodSandbox, cluster: ClusterNetwork): readonly Command[] {
    const bridgeExists = this.bridged.has(node.ns);
    this.bridged.add(node.ns);
    // flannel.go loadFlannelNetConf/delegateAdd: the delegate keeps an mtu it was given, else gets FLANNEL_MTU.
    const mtu = cluster.configuredPodMtu ?? this.podMtu(cluster);
    return bridgeAdd(node, pod, { mtu, podNetwork: cluster.podNetwork, bridgeExists });
  }

  podRemoved(_node: NodeNetwork, pod: PodSandbox): readonly Command[] {
    return bridgeDel(pod);
  }
}

/** Flannel's vxlan backend (vxlan.go, device.go, vxlan_network.go). */
export class FlannelVxlan extends FlannelCni {
  readonly name = 'flannel-vxlan';

  podMtu(cluster: ClusterNetwork): number {
    return cluster.underlayMtu - ENCAP_OVERHEAD;
  }

  /**
   * device.go newVXLANDevice: flannel.1 with the VtepMAC, VNI 1, the node's address as local on eth0, port 8472,
   * no learning, MTU left to the kernel (lower device - 50); then Configure: the lease's network address as /32, up.
   */
  protected backendAdded(node: NodeNetwork): readonly Command[] {
    const tunnelAddress = addressIn(mustParsePrefix(node.podCidr), 0);
    return [
      run(
        node.ns,
        'ip',
        'link',
        'add',
        FLANNEL_DEVICE,
        'address',
        node.tunnelMac,
        'type',
        'vxlan',
        'id',
        String(FLANNEL_VNI),
        'local',
        node.address,
        'dev',
        node.ifname,
        'dstport',
        String(FLANNEL_PORT),
        'nolearning',
      ),
      run(node.ns, 'ip', 'addr', 'add', `${tunnelAddress}/32`, 'dev', FLANNEL_DEVICE),
      run(node.ns, 'ip', 'link', 'set', 'dev', FLANNEL_DEVICE, 'up'),
    ];
  }

  /**
   * vxlan_network.go handleSubnetEvents EventAdded: AddARP (NeighSet, permanent), AddFDB (NeighSet AF_BRIDGE, self,
   * permanent), then RouteReplace of the lease's subnet via its network address, onlink — the route last, so the
   * kernel never has to ARP for the gateway.
   */
  peerAdded(node: NodeNetwork, peer: NodeNetwork): readonly Command[] {
    const peerTunnel = addressIn(mustParsePrefix(peer.podCidr), 0);
    const dev = FLANNEL_DEVICE;
    return [
      run(
        node.ns,
        'ip',
        'neigh',
        'replace',
        peerTunnel,
        'lladdr',
        peer.tunnelMac,
        'dev',
        dev,
        'nud',
        'permanent',
      ),
      run(
        node.ns,
        'bridge',
        'fdb',
        'replace',
        peer.tunnelMac,
        'dev',
        dev,
        'dst',
        peer.address,
        'self',
        'permanent',
      ),
      run(node.ns, 'ip', 'route', 'replace', peer.podCidr, 'via', peerTunnel, 'dev', dev, 'onlink'),
    ];
  }

  /** EventRemoved: DelARP, DelFDB, RouteDel, in that order. */
  peerRemoved(node: NodeNetwork, peer: NodeNetwork): readonly Command[] {
    const peerTunnel = addressIn(mustParsePrefix(peer.podCidr), 0);
    const dev = FLANNEL_DEVICE;
    return [
      run(node.ns, 'ip', 'neigh', 'del', peerTunnel, 'dev', dev),
      run(node.ns, 'bridge', 'fdb', 'del', peer.tunnelMac, 'dev', dev, 'dst', peer.address, 'self'),
      run(node.ns, 'ip', 'route', 'del', peer.podCidr, 'via', peerTunnel, 'dev', dev, 'onlink'),
    ];
  }
}

/** Flannel's host-gw backend (hostgw.go, route_network.go): no device, a route via each remote node on eth0. */
export class FlannelHostGw extends FlannelCni {
  readonly name = 'flannel-host-gw';

  podMtu(cluster: ClusterNetwork): number {
    return cluster.underlayMtu;
  }

  protected backendAdded(): readonly Command[] {
    return [];
  }

  /** route_network.go handleSubnetEvents: RouteReplace {Dst: lease subnet, Gw: PublicIP, LinkIndex: eth0}. */
  peerAdded(node: NodeNetwork, peer: NodeNetwork): readonly Command[] {
    return [run(node.ns, 'ip', 'route', 'replace', peer.podCidr, 'via', peer.address, 'dev', node.ifname)];
  }

  peerRemoved(node: NodeNetwork, peer: NodeNetwork): readonly Command[] {
    return [run(node.ns, 'ip', 'route', 'del', peer.podCidr, 'via', peer.address, 'dev', node.ifname)];
  }
}

/** trafficmngr.KubeProxyMark: flanneld leaves what kube-proxy marked for masquerade to kube-proxy. */
const KUBE_PROXY_MARK = '0x4000/0x4000';

/**
 * trafficmngr/iptables masqRules and forwardRules (random-fully supported): ClearChain creates FLANNEL-POSTRTG and
 * FLANNEL-FWD, then the rules go in with one iptables-restore --noflush, the jumps appended to POSTROUTING and FORWARD.
 */
export function flannelRules(node: NodeNetwork, cluster: ClusterNetwork): Command[] {
  const clusterCidr = cluster.podNetwork;
  const podCidr = node.podCidr;
  const masq = '-m comment --comment "flanneld masq"';
  const forward = '-m comment --comment "flanneld forward"';
  const restore = [
    '*nat',
    `-A POSTROUTING ${masq} -j FLANNEL-POSTRTG`,
    `-A FLANNEL-POSTRTG -m mark --mark ${KUBE_PROXY_MARK} ${masq} -j RETURN`,
    `-A FLANNEL-POSTRTG -s ${podCidr} -d ${clusterCidr} ${masq} -j RETURN`,
    `-A FLANNEL-POSTRTG -s ${clusterCidr} -d ${podCidr} ${masq} -j RETURN`,
    `-A FLANNEL-POSTRTG ! -s ${clusterCidr} -d ${podCidr} ${masq} -j RETURN`,
    `-A FLANNEL-POSTRTG -s ${clusterCidr} ! -d 224.0.0.0/4 ${masq} -j MASQUERADE --random-fully`,
    `-A FLANNEL-POSTRTG ! -s ${clusterCidr} -d ${clusterCidr} ${masq} -j MASQUERADE --random-fully`,
    'COMMIT',
    '*filter',
    `-A FORWARD ${forward} -j FLANNEL-FWD`,
    `-A FLANNEL-FWD -s ${clusterCidr} ${forward} -j ACCEPT`,
    `-A FLANNEL-FWD -d ${clusterCidr} ${forward} -j ACCEPT`,
    'COMMIT',
    '',
  ].join('\n');
  return [
    run(node.ns, 'iptables', '-t', 'nat', '-N', 'FLANNEL-POSTRTG'),
    run(node.ns, 'iptables', '-t', 'filter', '-N', 'FLANNEL-FWD'),
    { ns: node.ns, argv: ['iptables-restore', '--noflush'], stdin: restore },
  ];
}
