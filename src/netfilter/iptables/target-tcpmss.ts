// The TCPMSS target (libxt_TCPMSS.c, xt_TCPMSS.c): `--set-mss N` or `--clamp-mss-to-pmtu` lowers the MSS option of
// the TCP segments it sees (the rule picks the SYNs), adding the option when a segment has none, and fixes the TCP
// (and, when it grows, the IP) checksum incrementally as the kernel does. TCP only; clamping in FORWARD, OUTPUT and
// POSTROUTING. nft lists it through its translation (`tcp option maxseg size set rt mtu`).

import type { Packet } from '../../core/packet.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type OptionDef,
  onlyOnce,
  type ParseContext,
  type TargetModule,
  type Usage,
  type XtTarget,
} from './extension.ts';
import { parseUnsigned } from './names.ts';

const TCPOPT_MSS = 2;
const TCPOLEN_MSS = 4;

/** csum_replace2 / inet_proto_csum_replace2 on a full checksum (RFC 1624: ~(~HC + ~m + m')). */
function replace16(check: number, from: number, to: number): number {
  let sum = (~check & 0xffff) + (~from & 0xffff) + (to & 0xffff);
  sum = (sum & 0xffff) + (sum >>> 16);
  sum = (sum & 0xffff) + (sum >>> 16);
  return ~sum & 0xffff;
}

function readU16(buf: Uint8Array, at: number): number {
  return (buf[at]! << 8) | buf[at + 1]!;
}

function writeU16(buf: Uint8Array, at: number, value: number): void {
  buf[at] = value >>> 8;
  buf[at + 1] = value & 0xff;
}

/**
 * tcpmss_mangle_packet + tcpmss_tg4 on the IPv4 packet at `pkt.network`: 'drop' for a segment too short to hold
 * its header or a path MTU too small; else the packet goes on, maybe with a smaller MSS. `pmtu` is the smaller of
 * the route's MTU and the reverse route's (tcpmss_reverse_mtu), asked only when clamping.
 */
export function tcpmssMangle(pkt: Packet, mss: number | 'pmtu', pmtu: () => number): 'continue' | 'drop' {
  let buf = pkt.buf;
  const ip = pkt.network;
  const ihl = (buf[ip]! & 0x0f) * 4;
  if ((readU16(buf, ip + 6) & 0x1fff) !== 0) return 'continue';
  const th = ip + ihl;
  const len = pkt.end - th;
  if (len < 20) return 'drop';
  const tcpHeaderLen = (buf[th + 12]! >>> 4) * 4;
  if (len < tcpHeaderLen || tcpHeaderLen < 20) return 'drop';
  let newMss: number;
  if (mss === 'pmtu') {
    const mtu = pmtu();
    if (mtu <= 40) return 'drop';
    newMss = (mtu - 40) & 0xffff;
  } else newMss = mss;
  for (let i = 20; i <= tcpHeaderLen - TCPOLEN_MSS; ) {
    const kind = buf[th + i]!;
    if (kind === TCPOPT_MSS && buf[th + i + 1] === TCPOLEN_MSS) {
      const oldMss = readU16(buf, th + i + 2);
      // Never increase the MSS, even when setting it.
      if (oldMss <= newMss) return 'continue';
      writeU16(buf, th + i + 2, newMss);
      writeU16(buf, th + 16, replace16(readU16(buf, th + 16), oldMss, newMss));
      return 'continue';
    }
    // optlen: NOP, EOL and zero-length options advance by one.
    i += kind <= 1 || buf[th + i + 1] === 0 ? 1 : buf[th + i + 1]!;
  }
  // No MSS option: added only to a segment without data whose header has room left.
  if (len > tcpHeaderLen || tcpHeaderLen >= 60) return 'continue';
  if (pkt.end + TCPOLEN_MSS > buf.length) {
    const grown = new Uint8Array(buf.length + TCPOLEN_MSS);
    grown.set(buf);
    pkt.buf = grown;
    buf = grown;
  }
  pkt.end += TCPOLEN_MSS;
  newMss = Math.min(newMss, 536);
  const opt = th + 20;
  buf.copyWithin(opt + TCPOLEN_MSS, opt, opt + len - 20);
  let check = readU16(buf, th + 16);
  check = replace16(check, len, len + TCPOLEN_MSS);
  buf[opt] = TCPOPT_MSS;
  buf[opt + 1] = TCPOLEN_MSS;
  writeU16(buf, opt + 2, newMss);
  check = replace16(check, 0, readU16(buf, opt));
  check = replace16(check, 0, readU16(buf, opt + 2));
  const oldWord = readU16(buf, th + 12);
  buf[th + 12] = buf[th + 12]! + ((TCPOLEN_MSS / 4) << 4);
  check = replace16(check, oldWord, readU16(buf, th + 12));
  writeU16(buf, th + 16, check);
  // The IP total length and header checksum.
  const oldTotal = readU16(buf, ip + 2);
  writeU16(buf, ip + 2, oldTotal + TCPOLEN_MSS);
  writeU16(buf, ip + 10, replace16(readU16(buf, ip + 10), oldTotal, oldTotal + TCPOLEN_MSS));
  return 'continue';
}

export class TcpmssTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'TCPMSS';
  readonly listName = 'TCPMSS';
  readonly options: readonly OptionDef[] = [
    { name: 'set-mss', arg: true, invert: false },
    { name: 'clamp-mss-to-pmtu', arg: false, invert: false },
  ];
  mss: number | undefined;
  clamp = false;

  parse(option: string, args: readonly string[]): IptError | undefined {
    if (option === 'clamp-mss-to-pmtu') {
      if (this.clamp) return param(onlyOnce('TCPMSS', option));
      this.clamp = true;
      return undefined;
    }
    if (this.mss !== undefined) return param(onlyOnce('TCPMSS', option));
    const value = parseUnsigned(args[0]!, 65535 - 20);
    if (value === undefined)
      return param('TCPMSS: bad value for option "--set-mss", or out of range (0-65515).\n');
    this.mss = value;
    return undefined;
  }

  finish(): IptError | undefined {
    if (!this.clamp && this.mss === undefined)
      return param('TCPMSS target: At least one parameter is required');
    return undefined;
  }

  save(): string[] {
    return this.clamp ? ['--clamp-mss-to-pmtu'] : ['--set-mss', String(this.mss ?? 0)];
  }

  print(): string {
    return this.clamp ? ' TCPMSS clamp to PMTU' : ` TCPMSS set ${this.mss ?? 0}`;
  }

  compile(): Compiled {
    const mss = this.clamp ? ('pmtu' as const) : (this.mss ?? 0);
    return {
      exprs: [{ kind: 'tcpmss', mss }],
      xlate: `tcp option maxseg size set ${mss === 'pmtu' ? 'rt mtu' : mss}`,
    };
  }

  /** The target is for TCP (xt_check_target's proto); tcpmss_tg4_check limits clamping to where a route is known. */
  usage(ctx: ParseContext): Usage | undefined {
    if (ctx.proto !== 6 || ctx.protoInvert) return { never: true };
    return this.clamp ? { hooks: ['forward', 'output', 'postrouting'] } : undefined;
  }
}

export const tcpmssTarget: TargetModule = { name: 'TCPMSS', create: () => new TcpmssTarget() };
