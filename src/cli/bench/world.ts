// The node `packetlab bench rules|nat|path` sends packets through, built with the tools facade as a user's node
// snapshot is (ip, sysctl, iptables-restore / nft -f): namespace `node` with one veth per interface the mix names,
// whose far ends sit in namespace `wire` where the bench's frames start; the node forwards, and sends what is not
// local out of its first interface to a static gateway (198.18.0.254). With `server`, a third namespace owns every
// destination of the mix behind the node (interface srv), so a packet crosses the node, reaches a host and is
// answered (a TCP reset, an ICMP port unreachable) back through it. Only public APIs: Simulation, Namespace, exec.

import type { NetDevice } from '../../link/device.ts';
import { packetSend } from '../../link/packet-socket.ts';
import type { Namespace } from '../../netns/namespace.ts';
import { Simulation } from '../../netns/simulation.ts';
import { type PacketSpec, TRACE_SOURCE_MAC, traceFrame } from '../../node-snapshot/packet-spec.ts';
import { exec, runArgv } from '../../tools/exec.ts';
import { formatIpv4 } from '../../wire/address.ts';
import type { MixFlow } from './mix.ts';

/** Virtual time one packet is given to cross the node (and its answer to come back): 1 ms. */
export const PACKET_NS = 1_000_000;

export type RulesetFormat = 'iptables' | 'nft';

/** iptables-save's `*table` ... `COMMIT`, or nft's `table FAMILY NAME {`; undefined for neither. */
export function rulesetFormat(text: string): RulesetFormat | undefined {
  if (/^\*(filter|nat|mangle|raw|security)\s*$/m.test(text) && /^COMMIT\s*$/m.test(text)) return 'iptables';
  if (/^table\s+(ip|ip6|inet|arp|bridge|netdev)\s+\S+\s*\{/m.test(text)) return 'nft';
  return undefined;
}

/** Rules in a ruleset's text: iptables-save's `-A` lines, or nft's statements inside chains (a rough count). */
export function countRules(text: string, format: RulesetFormat): number {
  const lines = text.split('\n').map((line) => line.trim());
  if (format === 'iptables') return lines.filter((line) => line.startsWith('-A ')).length;
  return lines.filter(
    (line) =>
      line !== '' &&
      !/^(table|chain|set|map|flowtable|type|policy|elements|flags|counter$|}|#)/.test(line) &&
      !line.endsWith('{'),
  ).length;
}

export interface NodeWorld {
  readonly sim: Simulation;
  readonly node: Namespace;
  /** Sends one frame in through the far end of a mix interface and lets it settle. */
  send(far: NetDevice, frame: Uint8Array): void;
  /** The far end (in `wire`) of the node's interface `dev`. */
  far(dev: string): NetDevice;
  /** The frame of `spec` as received on the node's `dev`. */
  frame(spec: PacketSpec, dev: string): Uint8Array;
  /** Empties every namespace's conntrack table (conntrack -F). */
  flush(): void;
}

function must(ns: Namespace, line: string): void {
  const result = exec(ns, line);
  if (result.exitCode !== 0) throw new Error(`${ns.name}: ${line}: ${result.stderr.trim()}`);
}

export interface WorldOptions {
  readonly interfaces: readonly string[];
  readonly destinations?: readonly number[];
  readonly ruleset?: { readonly text: string; readonly format: RulesetFormat };
  readonly seed?: string;
}

/** Builds the node; throws with the failing command's error (a ruleset the tools refuse, an interface name). */
export function buildWorld(options: WorldOptions): NodeWorld {
  const sim = new Simulation({ seed: options.seed ?? 'bench' });
  const node = sim.addNamespace('node');
  const wire = sim.addNamespace('wire');
  must(node, 'sysctl -w net.ipv4.ip_forward=1');
  const fars = new Map<string, NetDevice>();
  options.interfaces.forEach((dev, i) => {
    must(node, `ip link add ${dev} type veth peer name w${i} netns wire`);
    must(node, `ip addr add 198.18.${i}.1/24 dev ${dev}`);
    must(node, `ip link set ${dev} up`);
    must(wire, `ip link set w${i} up`);
    fars.set(dev, wire.byName(`w${i}`)!);
  });
  const first = options.interfaces[0]!;
  must(node, `ip neigh add 198.18.0.254 lladdr 02:00:00:00:00:fe dev ${first} nud permanent`);
  must(node, `ip route add default via 198.18.0.254 dev ${first}`);
  const spaces = [node];
  if (options.destinations !== undefined) {
    const server = sim.addNamespace('server');
    spaces.push(server);
    must(node, 'ip link add srv type veth peer name eth0 netns server');
    must(node, 'ip addr add 198.19.0.1/24 dev srv');
    must(node, 'ip link set srv up');
    must(server, 'ip addr add 198.19.0.2/24 dev eth0');
    must(server, 'ip link set eth0 up');
    must(server, 'ip route add default via 198.19.0.1');
    for (const dst of new Set(options.destinations)) {
      must(server, `ip addr add ${formatIpv4(dst)}/32 dev eth0`);
      must(node, `ip route add ${formatIpv4(dst)}/32 via 198.19.0.2 dev srv`);
    }
  }
  if (options.ruleset !== undefined) {
    const argv = options.ruleset.format === 'iptables' ? ['iptables-restore'] : ['nft', '-f', '-'];
    const loaded = runArgv(node, argv, options.ruleset.text);
    if (loaded.exitCode !== 0) throw new Error(`${argv.join(' ')}: ${loaded.stderr.trim()}`);
  }
  return {
    sim,
    node,
    send(far, frame) {
      packetSend(far, frame);
      sim.run(PACKET_NS);
    },
    far(dev) {
      return fars.get(dev)!;
    },
    frame(spec, dev) {
      return traceFrame(spec, node.byName(dev)!.mac, TRACE_SOURCE_MAC);
    },
    flush() {
      for (const ns of spaces) runArgv(ns, ['conntrack', '-F'], '');
    },
  };
}

/** The mix's flow with its source port (tcp, udp) or source address (icmp) moved by `variant`: a new connection. */
export function variantOf(flow: MixFlow, variant: number): PacketSpec {
  const spec = flow.spec;
  if (spec.protocol === 'icmp') return { ...spec, src: (spec.src + variant) >>> 0 };
  return { ...spec, srcPort: 1024 + ((spec.srcPort - 1024 + variant + 64512) % 64512) };
}
