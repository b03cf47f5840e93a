// What the hook orchestration asks of NAT (implemented by nat/nat.ts, mirroring nf_nat_core.c), as an interface so
// the orchestration and the statements do not depend on how bindings are chosen.

import type { Packet } from '../core/packet.ts';
import type { Expr } from './ir.ts';

export type Manip = 'src' | 'dst';

export interface NatEngine {
  /** nf_nat_initialized: a binding of this manip type exists for the packet's connection. */
  isInitialized(pkt: Packet, manip: Manip): boolean;
  /** nf_nat_setup_info for a nat statement on a connection's first packet. */
  setup(
    pkt: Packet,
    nat: Extract<Expr, { kind: 'nat' }>,
    manip: Manip,
    inIfindex: number,
    outIfindex: number,
    now: number,
  ): 'accept' | 'drop';
  /** nf_nat_alloc_null_binding: no nat rule bound the connection at this hook. */
  nullBinding(pkt: Packet, manip: Manip, now: number): void;
  /** nf_nat_packet: rewrite the packet for its connection's bindings at this hook. */
  apply(pkt: Packet, hook: 'prerouting' | 'input' | 'output' | 'postrouting', now: number): 'accept' | 'drop';
}
