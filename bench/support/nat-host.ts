// The smallest NetfilterHost NAT needs in a benchmark (a seeded rng, one MASQUERADE address, no devices to speak of) and the SNAT expressions the NAT suites bind with; not src/.

import type { Packet } from '../../src/core/packet.ts';
import { Rng } from '../../src/core/rng.ts';
import type { AddressType, NetfilterHost } from '../../src/netfilter/host.ts';
import type { RejectWith } from '../../src/netfilter/ir.ts';
import type { NatExpr } from '../../src/netfilter/nat/nat.ts';

export class BenchHost implements NetfilterHost {
  readonly rng: Rng;
  readonly netnsInum = 4026532096;
  clock = 0;

  constructor(
    seed: string,
    private readonly masqueradeAddr: number,
  ) {
    this.rng = new Rng(seed);
  }

  now(): number {
    return this.clock;
  }
  ifname(ifindex: number): string | undefined {
    return `eth${ifindex}`;
  }
  addressType(_addr: number): AddressType {
    return 'unicast';
  }
  masqueradeAddress(_oif: number, _dst: number): number | undefined {
    return this.masqueradeAddr;
  }
  redirectAddress(_iif: number): number | undefined {
    return undefined;
  }
  reject(_pkt: Packet, _how: RejectWith, _hook: string): void {}
  log(_line: string): void {}
}

/** `SNAT --to-source ADDR --random-fully` (kube-proxy's MASQUERADE with --random-fully, to a fixed address). */
export function snatFullyRandom(addr: number): NatExpr {
  return {
    kind: 'nat',
    type: 'snat',
    range: { addrLow: addr, addrHigh: addr, portLow: undefined, portHigh: undefined },
    flags: { random: false, fullyRandom: true, persistent: false },
  };
}
