// A command plan: the argument vectors that build a network (what a CNI, kubelet and kube-proxy run), each in one
// namespace, and the underlay segments the nodes plug into. packetlab runs a plan with `exec`; the kernel harness
// (src/harness/, src/cli/verify/linux-driver.ts) runs the same plan with `ip netns exec`. Plain data: no functions,
// no objects beyond the words.
//
// Words that name a namespace (`ip link add ... netns W1`) or a file (`nft -f FILE`) are objects, so each runner can
// substitute its own name or path; a plain string after `netns` is refused, so no command can reach outside the plan.

/** One word of a command: text, the name of a scenario namespace, or a file with the given content. */
export type Word = string | { readonly ns: string } | { readonly file: string; readonly text: string };

export interface Command {
  /** The namespace it runs in. */
  readonly ns: string;
  readonly argv: readonly Word[];
  /** Standard input (iptables-restore reads its ruleset there). */
  readonly stdin?: string;
}

/** One interface plugged into an underlay segment. */
export interface SegmentPort {
  readonly ns: string;
  readonly ifname: string;
  readonly mac: string;
  /** The node interface's MTU (default 1500); the segment's own MTU is on the switch side. */
  readonly mtu: number;
}

/**
 * An underlay network (a Docker network under kind nodes): a switch whose ports have the
 * segment's MTU. packetlab builds it with `Segment`; the real driver with a bridge in a
 * namespace of its own and one veth pair per port.
 */
export interface SegmentSpec {
  readonly name: string;
  readonly mtu: number;
  readonly ports: readonly SegmentPort[];
}
