// An underlay segment joining node interfaces, like the Docker network kind nodes sit on: a learning switch whose
// ports have the segment's MTU, so a frame too big for it is dropped silently on the way in (is_skb_forwardable).
//
// It is built from the same parts as everything else: a hidden namespace holding a Linux
// bridge, and one veth pair per attached interface. `impair()` gives the segment latency, jitter,
// loss, duplication, corruption, reordering or a rate: a netem qdisc on the egress of every
// switch port, so each frame crossing the segment meets it exactly once (on the port toward its
// receiver), as `tc qdisc add dev PORT root netem ...` would on the switch. No VLANs.

import type { Bridge } from '../link/bridge.ts';
import { NETEM_DEFAULTS, Netem, type NetemConfig, percentToProbability } from '../link/qdisc/netem.ts';
import type { NetemDistribution } from '../link/qdisc/netem-tables.ts';
import type { Veth } from '../link/veth.ts';
import type { MacAddr } from '../wire/address.ts';
import type { Namespace } from './namespace.ts';
import type { Simulation } from './simulation.ts';

export interface SegmentOptions {
  /** The largest IP packet the segment carries; frames above MTU + 18 bytes vanish. Default 1500. */
  readonly mtu?: number;
}

/** Impairments of a segment, in the units of tc-netem(8); each applies to every frame, one way. */
export interface SegmentImpairments {
  readonly delayMs?: number;
  readonly jitterMs?: number;
  /** Correlation of successive delays, percent. */
  readonly delayCorrelationPercent?: number;
  /** Distribution of the jitter; uniform without one. */
  readonly distribution?: NetemDistribution;
  readonly lossPercent?: number;
  readonly duplicatePercent?: number;
  readonly corruptPercent?: number;
  /** Frames sent at once, ahead of the delayed ones (needs a delay); one in `reorderGap` frames is a candidate. */
  readonly reorderPercent?: number;
  readonly reorderGap?: number;
  /** Bits per second each port sends at. */
  readonly rateBitsPerSecond?: number;
  /** Frames a port may hold (netem's limit, default 1000). */
  readonly limit?: number;
}

export class Segment {
  readonly name: string;
  readonly mtu: number;
  /** The namespace holding the switch; it has no addresses and runs no IP. */
  readonly switchNs: Namespace;
  readonly bridge: Bridge;
  private ports = 0;
  private readonly switchPorts: Veth[] = [];
  private impairments: NetemConfig | null = null;
  private impairedPorts = 0;

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
    this.switchPorts.push(port);
    if (this.impairments !== null) this.impairPort(port, this.impairments);
    return nic;
  }

  /**
   * Gives every port of the segment (present and future) a netem with these impairments, or
   * removes them with `null`. Delays are per direction: a round trip across the segment takes
   * twice `delayMs`. Random choices come from the simulation's seed, one stream per port.
   */
  impair(impairments: SegmentImpairments | null): void {
    this.impairments = impairments === null ? null : netemConfigOf(impairments);
    for (const port of this.switchPorts) {
      if (this.impairments === null) port.setQdisc(null);
      else this.impairPort(port, this.impairments);
    }
  }

  private impairPort(port: Veth, config: NetemConfig): void {
    const current = port.qdisc;
    if (current instanceof Netem) {
      current.change(config);
      return;
    }
    this.impairedPorts++;
    const rng = this.switchNs.rng.fork(`impair:${port.name}:${this.impairedPorts}`);
    port.setQdisc(new Netem(0x8000 + this.impairedPorts, config, rng));
  }
}

/** The netem configuration for a segment's impairments (what `tc qdisc add ... netem` would send). */
function netemConfigOf(impairments: SegmentImpairments): NetemConfig {
  const reorder = impairments.reorderPercent ?? 0;
  if (reorder > 0 && (impairments.delayMs ?? 0) <= 0) throw new Error('segment: reordering needs a delay');
  if (
    impairments.distribution !== undefined &&
    ((impairments.delayMs ?? 0) <= 0 || (impairments.jitterMs ?? 0) <= 0)
  )
    throw new Error('segment: a distribution needs a delay and a jitter');
  return {
    ...NETEM_DEFAULTS,
    limit: impairments.limit ?? NETEM_DEFAULTS.limit,
    latencyNs: Math.round((impairments.delayMs ?? 0) * 1e6),
    jitterNs: Math.round((impairments.jitterMs ?? 0) * 1e6),
    delayCorrelation: percentToProbability(impairments.delayCorrelationPercent ?? 0),
    distribution: impairments.distribution ?? null,
    loss: percentToProbability(impairments.lossPercent ?? 0),
    duplicate: percentToProbability(impairments.duplicatePercent ?? 0),
    corrupt: percentToProbability(impairments.corruptPercent ?? 0),
    reorder: percentToProbability(reorder),
    gap: reorder > 0 ? (impairments.reorderGap ?? 1) : 0,
    rate: Math.trunc((impairments.rateBitsPerSecond ?? 0) / 8),
  };
}
