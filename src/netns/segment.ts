// An underlay segment joining node interfaces, like the Docker network kind nodes sit on: a learning switch whose
// ports have the segment's MTU, so a frame too big for it is dropped silently on the way in (is_skb_forwardable).
//
// It is built from the same parts as everything else: a hidden namespace holding a Linux
// bridge, and one veth pair per attached interface. No latency, no loss, no VLANs.

import type { Bridge } from '../link/bridge.ts';
import type { Veth } from '../link/veth.ts';
import type { MacAddr } from '../wire/address.ts';
import type { Namespace } from './namespace.ts';
import type { Simulation } from './simulation.ts';

export interface SegmentOptions {
  /** The largest IP packet the segment carries; frames above MTU + 18 bytes vanish. Default 1500. */
  readonly mtu?: number;
}

export class Segment {
  readonly name: string;
  readonly mtu: number;
  /** The namespace holding the switch; it has no addresses and runs no IP. */
  readonly switchNs: Namespace;
  readonly bridge: Bridge;
  private ports = 0;

  constructor(sim: Simulation, name: string, options: SegmentOptions = {}) {
    this.name = name;
    this.mtu = options.mtu ?? 1500;
    this.switchNs = sim.addNamespace(`segment:${name}`);
    const bridge = this.switchNs.addBridge('switch', { mtu: this.mtu });
    if (!bridge.ok) throw new Error(`segment ${name}: ${bridge.error}`);
    this.bridge = bridge.value;
    this.switchNs.setUp(this.bridge);
  }

  /**
   * Plugs `ns` into the segment with a new interface `ifname` (up, MTU 1500 unless given),
   * as Docker does for a kind node's eth0. Returns the interface in `ns`.
   */
  attach(ns: Namespace, ifname = 'eth0', options: { mtu?: number; mac?: MacAddr } = {}): Veth {
    this.ports++;
    const portName = `port${this.ports}`;
    const pair = ns.addVeth(ifname, portName, this.switchNs, { mtu: options.mtu ?? 1500 });
    if (!pair.ok) throw new Error(`segment ${this.name}: cannot attach ${ns.name}/${ifname}: ${pair.error}`);
    const [nic, port] = pair.value;
    if (options.mac !== undefined) nic.mac = options.mac;
    this.switchNs.setMtu(port, this.mtu);
    this.switchNs.setMaster(port, this.bridge);
    this.switchNs.setUp(port);
    ns.setUp(nic);
    return nic;
  }
}
