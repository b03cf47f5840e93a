// Runs the xt targets of ext-options.ts on a packet as the kernel modules do: NFLOG and CHECKSUM go on,
// NFQUEUE with no listener drops (or accepts with --queue-bypass), NETMAP binds the connection's NAT
// (xt_NETMAP.c: netmap_tg_v0), ECN (ipt_ECN.c), TOS and DSCP (xt_DSCP.c) rewrite the header with its checksums.

import { updateChecksum16 } from '../../wire/checksum.ts';
import type { Expr, Verdict } from '../ir.ts';
import type { NatEngine } from '../nat-engine.ts';
import type { PacketState } from '../packet-state.ts';
import type { ExtTargetOptions } from './ext-options.ts';

const ACCEPT: Verdict = { kind: 'accept' };
const DROP: Verdict = { kind: 'drop' };

function u32(buf: Uint8Array, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

/** ipv4_change_dsfield: the TOS byte becomes `tos`, the header checksum follows. */
function setTos(buf: Uint8Array, ip: number, tos: number): void {
  const old = buf[ip + 1]!;
  if (old === tos) return;
  const check = (buf[ip + 10]! << 8) | buf[ip + 11]!;
  const updated = updateChecksum16(check, (buf[ip]! << 8) | old, (buf[ip]! << 8) | tos);
  buf[ip + 1] = tos;
  buf[ip + 10] = updated >> 8;
  buf[ip + 11] = updated & 0xff;
}

/** The verdict of the target, or undefined to go on with the rule (XT_CONTINUE). */
export function runExtTarget(
  state: PacketState,
  options: ExtTargetOptions,
  nat: NatEngine | undefined,
): Verdict | undefined {
  const pkt = state.pkt;
  const { buf, network } = pkt;
  switch (options.name) {
    case 'NFLOG':
    case 'CHECKSUM':
      return undefined;
    case 'NFQUEUE':
      // nf_queue: no queue instance (ESRCH); nf_hook_slow goes on to the next hook function with bypass.
      return options.bypass ? ACCEPT : DROP;
    case 'NETMAP': {
      if (nat === undefined) return ACCEPT;
      const manip = state.hook === 'prerouting' || state.hook === 'output' ? 'dst' : 'src';
      const original = u32(buf, network + (manip === 'dst' ? 16 : 12));
      const mapped = ((original & ~options.mask) | (options.addr & options.mask)) >>> 0;
      const expr: Extract<Expr, { kind: 'nat' }> = {
        kind: 'nat',
        type: manip === 'dst' ? 'dnat' : 'snat',
        range: { addrLow: mapped, addrHigh: mapped, portLow: undefined, portHigh: undefined },
        flags: { random: false, fullyRandom: false, persistent: false },
      };
      const verdict = nat.setup(
        pkt,
        expr,
        manip,
        state.inDev?.ifindex ?? 0,
        state.outDev?.ifindex ?? 0,
        state.host.now(),
      );
      return verdict === 'accept' ? ACCEPT : DROP;
    }
    case 'TOS':
      setTos(buf, network, ((buf[network + 1]! & ~options.mask) ^ options.value) & 0xff);
      return undefined;
    case 'DSCP': {
      const tos = buf[network + 1]!;
      if (tos >> 2 !== options.dscp) setTos(buf, network, (tos & 0x03) | (options.dscp << 2));
      return undefined;
    }
    case 'ECN': {
      if (options.ect !== undefined) setTos(buf, network, (buf[network + 1]! & ~3) | options.ect);
      if ((options.ece === undefined && options.cwr === undefined) || buf[network + 9] !== 6)
        return undefined;
      const th = network + (buf[network]! & 0x0f) * 4;
      if (th + 18 > pkt.end) return DROP;
      const word = (buf[th + 12]! << 8) | buf[th + 13]!;
      let flags = buf[th + 13]!;
      if (options.ece !== undefined) flags = options.ece ? flags | 0x40 : flags & ~0x40;
      if (options.cwr !== undefined) flags = options.cwr ? flags | 0x80 : flags & ~0x80;
      if (flags === buf[th + 13]) return undefined;
      const check = (buf[th + 16]! << 8) | buf[th + 17]!;
      const updated = updateChecksum16(check, word, (word & 0xff00) | flags);
      buf[th + 13] = flags;
      buf[th + 16] = updated >> 8;
      buf[th + 17] = updated & 0xff;
      return undefined;
    }
  }
}
