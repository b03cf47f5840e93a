// The TPROXY target (libxt_TPROXY.c, xt_TPROXY.c tproxy_tg4): `--on-port PORT [--on-ip ADDR] [--tproxy-mark
// VALUE[/MASK]]`, handing a TCP or UDP packet to a local transparent socket whatever its destination, and marking
// it so a policy route delivers it locally. Mangle PREROUTING only; `xt target TPROXY` for nft.

import { formatIpv4, parseIpv4 } from '../../wire/address.ts';
import type { NetfilterHost } from '../host.ts';
import { type IptError, param } from './errors.ts';
import {
  badValue,
  type Compiled,
  mustBeSpecified,
  type OptionDef,
  onlyOnce,
  type ParseContext,
  type TargetModule,
  type Usage,
  type XtTarget,
} from './extension.ts';
import { hasTrailingGarbage, parseMarkMask, trailingGarbage } from './match-mark.ts';
import { hex0x, parsePort } from './names.ts';

const TCP_SYN = 0x02;
const TCP_RST = 0x04;
const TCP_ACK = 0x10;
const TCP_FIN = 0x01;

/**
 * xtables_getportbyname: getaddrinfo's numeric service is strtoul's value cut to 16 bits (ULONG_MAX past 64
 * bits), else a service name.
 */
function parseOnPort(text: string): number | undefined {
  if (/^[0-9]+$/.test(text)) {
    const value = BigInt(text);
    return value >= 2n ** 64n ? 0xffff : Number(value & 0xffffn);
  }
  return parsePort(text, 'tcp');
}

/** xtopt_parse_host through getaddrinfo: a dotted address or localhost. */
function parseOnIp(text: string): number | undefined {
  if (text === 'localhost') return 0x7f00_0001;
  return parseIpv4(text);
}

/** What tproxy_tg4 decides for one packet; the packet's assigned socket is set on `pkt` by the caller. */
export type TproxyOutcome =
  | { readonly kind: 'drop' }
  | { readonly kind: 'accept'; readonly mark: number; readonly addr: number; readonly port: number };

const DROP: TproxyOutcome = { kind: 'drop' };

/**
 * tproxy_tg4: an established (or TIME_WAIT) socket for the packet's own 4-tuple, else a listener on `addr:port`
 * (addr 0: the in device's first address, nf_tproxy_laddr4); only a transparent one takes the packet.
 */
export function tproxyDecide(
  host: NetfilterHost,
  buf: Uint8Array,
  ip: number,
  end: number,
  iif: number,
  mark: number,
  target: {
    readonly addr: number;
    readonly port: number;
    readonly markValue: number;
    readonly markMask: number;
  },
): TproxyOutcome {
  const proto = buf[ip + 9]!;
  const th = ip + (buf[ip]! & 0x0f) * 4;
  if (th + (proto === 6 ? 20 : 8) > end) return DROP;
  const saddr = ((buf[ip + 12]! << 24) | (buf[ip + 13]! << 16) | (buf[ip + 14]! << 8) | buf[ip + 15]!) >>> 0;
  const daddr = ((buf[ip + 16]! << 24) | (buf[ip + 17]! << 16) | (buf[ip + 18]! << 8) | buf[ip + 19]!) >>> 0;
  const sport = (buf[th]! << 8) | buf[th + 1]!;
  const dport = (buf[th + 2]! << 8) | buf[th + 3]!;
  const lookup = host.socketLookup;
  if (lookup === undefined) return DROP;
  const laddr = target.addr !== 0 ? target.addr : (host.redirectAddress(iif) ?? daddr);
  const lport = target.port !== 0 ? target.port : dport;
  let sk = lookup(proto, saddr, sport, daddr, dport, 'established');
  if (sk?.timeWait) {
    // nf_tproxy_handle_time_wait4: a new SYN goes to the listener when there is one.
    const flags = proto === 6 ? buf[th + 13]! : 0;
    const newSyn = (flags & TCP_SYN) !== 0 && (flags & (TCP_RST | TCP_ACK | TCP_FIN)) === 0;
    const listener = newSyn ? lookup(proto, saddr, sport, laddr, lport, 'listener') : undefined;
    if (listener !== undefined) sk = listener;
  } else if (sk === undefined) sk = lookup(proto, saddr, sport, laddr, lport, 'listener');
  if (sk === undefined || !sk.transparent) return DROP;
  const newMark = ((mark & ~target.markMask) ^ target.markValue) >>> 0;
  return sk.listening
    ? { kind: 'accept', mark: newMark, addr: laddr, port: lport }
    : { kind: 'accept', mark: newMark, addr: 0, port: 0 };
}

export class TproxyTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'TPROXY';
  readonly listName = 'TPROXY';
  readonly options: readonly OptionDef[] = [
    { name: 'on-port', arg: true, invert: false },
    { name: 'on-ip', arg: true, invert: false },
    { name: 'tproxy-mark', arg: true, invert: false },
  ];
  port: number | undefined;
  addr = 0;
  markValue = 0;
  markMask = 0;
  private readonly given = new Set<string>();

  parse(option: string, args: readonly string[]): IptError | undefined {
    const text = args[0]!;
    if (this.given.has(option)) return param(onlyOnce('TPROXY', option));
    this.given.add(option);
    if (option === 'on-port') {
      const port = parseOnPort(text);
      if (port === undefined) return param(`Port "${text}" does not resolve to anything.\n`);
      this.port = port;
    } else if (option === 'on-ip') {
      const addr = parseOnIp(text);
      if (addr === undefined) return param('getaddrinfo: Name or service not known\n');
      this.addr = addr;
    } else {
      const parsed = parseMarkMask(text);
      if (parsed === undefined)
        return param(
          hasTrailingGarbage(text) ? trailingGarbage('TPROXY', option) : badValue('TPROXY', option),
        );
      this.markValue = parsed.value;
      this.markMask = parsed.mask;
    }
    return undefined;
  }

  finish(): IptError | undefined {
    return this.port === undefined ? param(mustBeSpecified('TPROXY', 'on-port')) : undefined;
  }

  save(): string[] {
    return [
      '--on-port',
      String(this.port ?? 0),
      '--on-ip',
      formatIpv4(this.addr),
      '--tproxy-mark',
      `${hex0x(this.markValue)}/${hex0x(this.markMask)}`,
    ];
  }

  /** tproxy_tg_print: ` TPROXY redirect 0.0.0.0:15001 mark 0x200/0xf00`. */
  print(): string {
    return ` TPROXY redirect ${formatIpv4(this.addr)}:${this.port ?? 0} mark ${hex0x(this.markValue)}/${hex0x(this.markMask)}`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'tproxy',
          addr: this.addr,
          port: this.port ?? 0,
          markValue: this.markValue,
          markMask: this.markMask,
        },
      ],
      xlate: 'xt target TPROXY',
    };
  }

  /** tproxy_tg4_check: TCP or UDP, not inverted; the target's own restriction to mangle PREROUTING. */
  usage(ctx: ParseContext): Usage | undefined {
    if ((ctx.proto !== 6 && ctx.proto !== 17) || ctx.protoInvert) return { never: true };
    return { tables: ['mangle'], hooks: ['prerouting'] };
  }
}

export const tproxyTarget: TargetModule = { name: 'TPROXY', create: () => new TproxyTarget() };
