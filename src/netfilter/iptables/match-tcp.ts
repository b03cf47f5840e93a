// The tcp and udp matches (libxt_tcp.c, libxt_udp.c) and how iptables-nft 1.8.9 turns them into native payload
// comparisons (nft.c: add_nft_tcp, add_nft_tcpudp) and reads them back for iptables-save; --tcp-option is
// accepted and printed but not evaluated (it always matches).

import type { CmpOp, Expr, PayloadField } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, ParseContext, Usage, XtMatch } from './extension.ts';
import { parseDecimal, parsePortRange, parsePortRangeX6, portName } from './names.ts';

/** A port selection: a range, possibly inverted. [0, 65535] not inverted selects everything. */
export interface PortSel {
  readonly low: number;
  readonly high: number;
  readonly invert: boolean;
}

const ALL_PORTS: PortSel = { low: 0, high: 0xffff, invert: false };

const TCP_FLAGS: readonly (readonly [string, number])[] = [
  ['FIN', 0x01],
  ['SYN', 0x02],
  ['RST', 0x04],
  ['PSH', 0x08],
  ['ACK', 0x10],
  ['URG', 0x20],
];

function parseFlags(text: string): number | IptError {
  let value = 0;
  for (const word of text.split(',')) {
    if (word === 'ALL') value |= 0x3f;
    else if (word === 'NONE') value |= 0;
    else {
      const flag = TCP_FLAGS.find(([name]) => name === word.toUpperCase());
      if (flag === undefined) return param(`Unknown TCP flag \`${word}'`);
      value |= flag[1];
    }
  }
  return value;
}

/** print_tcpf: `FIN,SYN` or NONE. */
function flagNames(value: number): string {
  if (value === 0) return 'NONE';
  return TCP_FLAGS.filter(([, bit]) => value & bit)
    .map(([name]) => name)
    .join(',');
}

/** print_tcp_xlate: `fin,syn`. */
function flagNamesNft(value: number): string {
  return TCP_FLAGS.filter(([, bit]) => value & bit)
    .map(([name]) => name.toLowerCase())
    .join(',');
}

function isAll(sel: PortSel): boolean {
  return sel.low === 0 && sel.high === 0xffff;
}

/** libxt_tcp print_ports: ` spt:80`, ` dpts:!1:2`. */
function printPorts(name: string, sel: PortSel, proto: string, numeric: boolean): string {
  if (isAll(sel) && !sel.invert) return '';
  const inv = sel.invert ? '!' : '';
  if (sel.low === sel.high) return ` ${name}:${inv}${portName(sel.low, proto, numeric)}`;
  return ` ${name}s:${inv}${portName(sel.low, proto, numeric)}:${portName(sel.high, proto, numeric)}`;
}

function savePorts(option: string, sel: PortSel): string[] {
  if (isAll(sel)) return [];
  const words = sel.invert ? ['!'] : [];
  words.push(option, sel.low === sel.high ? `${sel.low}` : `${sel.low}:${sel.high}`);
  return words;
}

function xlatePorts(field: string, sel: PortSel): string | undefined {
  if (isAll(sel)) return undefined;
  const inv = sel.invert ? '!= ' : '';
  return sel.low === sel.high ? `${field} ${inv}${sel.low}` : `${field} ${inv}${sel.low}-${sel.high}`;
}

/** The comparison iptables-nft emits for one port selection (nft.c: expr_gen_range_cmp16 and friends). */
interface PortCmp {
  readonly op: CmpOp;
  readonly low: number;
  readonly high: number;
}

function portCmp(sel: PortSel): PortCmp {
  if (sel.low === sel.high) return { op: sel.invert ? 'ne' : 'eq', low: sel.low, high: sel.low };
  if (sel.low === 0 && sel.high < 0xffff)
    return sel.invert
      ? { op: 'gt', low: sel.high, high: sel.high }
      : { op: 'le', low: sel.high, high: sel.high };
  return { op: sel.invert ? 'ne' : 'eq', low: sel.low, high: sel.high };
}

function portCmpExpr(field: PayloadField, cmp: PortCmp): Expr {
  return {
    kind: 'cmp',
    left: [{ selector: { kind: 'payload', field } }],
    op: cmp.op,
    right:
      cmp.low === cmp.high
        ? { kind: 'number', value: cmp.low }
        : { kind: 'range', low: cmp.low, high: cmp.high },
  };
}

/** What iptables-nft's rule parser reads back from one comparison (nft-shared.c: parse of cmp/range). */
function readBack(cmp: PortCmp): PortSel {
  switch (cmp.op) {
    case 'le':
      return { low: 0, high: cmp.high, invert: false };
    case 'gt':
      return { low: cmp.low + 1, high: 0xffff, invert: false };
    default:
      return { low: cmp.low, high: cmp.high, invert: cmp.op === 'ne' };
  }
}

/** The native form of a tcp/udp match, as iptables-save will print it after the kernel round trip. */
export interface NativePorts {
  sport: PortSel;
  dport: PortSel;
  flags: { mask: number; cmp: number; invert: boolean } | undefined;
}

export class TcpUdpMatch implements XtMatch {
  readonly kind = 'match';
  readonly options: readonly OptionDef[];
  sport: PortSel = ALL_PORTS;
  dport: PortSel = ALL_PORTS;
  flagMask = 0;
  flagCmp = 0;
  flagInvert = false;
  option = 0;
  optionInvert = false;
  private readonly seen = new Set<string>();

  constructor(readonly name: 'tcp' | 'udp') {
    const ports: OptionDef[] = [
      { name: 'source-port', arg: true, invert: true },
      { name: 'sport', arg: true, invert: true },
      { name: 'destination-port', arg: true, invert: true },
      { name: 'dport', arg: true, invert: true },
    ];
    this.options =
      name === 'tcp'
        ? [
            ...ports,
            { name: 'syn', arg: false, invert: true },
            { name: 'tcp-flags', arg: 'two', invert: true },
            { name: 'tcp-option', arg: true, invert: true },
          ]
        : ports;
  }

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const canonical = option === 'source-port' ? 'sport' : option === 'destination-port' ? 'dport' : option;
    const family = canonical === 'syn' ? 'tcp-flags' : canonical;
    if (this.seen.has(family)) {
      // udp is an x6 module (its option names in the message); tcp keeps libxt_tcp's own checks.
      const long =
        canonical === 'sport' ? 'source-port' : canonical === 'dport' ? 'destination-port' : canonical;
      if (this.name === 'udp') return param(`udp: option "--${long}" can only be used once.\n`);
      if (family === 'tcp-flags') return param("Only one of `--syn' or `--tcp-flags'  allowed");
      return param(`Only one \`--${long}' allowed`);
    }
    this.seen.add(family);
    switch (canonical) {
      case 'sport':
      case 'dport': {
        const range = this.name === 'udp' ? parsePortRangeX6(args[0]!) : parsePortRange(args[0]!, 'tcp');
        if (typeof range === 'string') return param(range);
        if (this.name === 'tcp' && range[0] > range[1]) return param('invalid portrange (min > max)');
        const sel = { low: range[0], high: range[1], invert };
        if (canonical === 'sport') this.sport = sel;
        else this.dport = sel;
        return undefined;
      }
      case 'syn':
        this.flagMask = 0x17;
        this.flagCmp = 0x02;
        this.flagInvert = invert;
        return undefined;
      case 'tcp-flags': {
        const mask = parseFlags(args[0]!);
        if (typeof mask !== 'number') return mask;
        const cmp = parseFlags(args[1]!);
        if (typeof cmp !== 'number') return cmp;
        this.flagMask = mask;
        this.flagCmp = cmp;
        this.flagInvert = invert;
        return undefined;
      }
      case 'tcp-option': {
        const value = parseDecimal(args[0]!, 255);
        if (value === undefined || value === 0) return param(`Bad TCP option "${args[0]}"`);
        this.option = value;
        this.optionInvert = invert;
        return undefined;
      }
    }
    return undefined;
  }

  finish(ctx: ParseContext): IptError | undefined {
    const proto = this.name === 'tcp' ? 6 : 17;
    if (ctx.proto !== proto || ctx.protoInvert)
      return param(this.name === 'tcp' ? "TCP match requires '-p tcp'" : "UDP match requires '-p udp'");
    return undefined;
  }

  /** tcp_all_zero: nothing to compare; iptables-nft then keeps the xt match. */
  private allZero(): boolean {
    return (
      isAll(this.sport) &&
      isAll(this.dport) &&
      !this.sport.invert &&
      !this.dport.invert &&
      this.flagMask === 0 &&
      this.flagCmp === 0 &&
      !this.flagInvert &&
      this.option === 0 &&
      !this.optionInvert
    );
  }

  /** Whether iptables-nft translates this match to native expressions (add_nft_tcp/add_nft_udp). */
  isNative(): boolean {
    return !this.allZero() && this.option === 0 && !this.optionInvert;
  }

  save(): string[] {
    const words = [...savePorts('--sport', this.sport), ...savePorts('--dport', this.dport)];
    if (this.option !== 0 || this.optionInvert) {
      if (this.optionInvert) words.push('!');
      words.push('--tcp-option', `${this.option}`);
    }
    if (this.flagMask !== 0 || this.flagInvert) {
      if (this.flagInvert) words.push('!');
      words.push('--tcp-flags', flagNames(this.flagMask), flagNames(this.flagCmp));
    }
    return words;
  }

  print(numeric: boolean): string {
    let text = ` ${this.name}`;
    text += printPorts('spt', this.sport, this.name, numeric);
    text += printPorts('dpt', this.dport, this.name, numeric);
    if (this.option !== 0 || this.optionInvert)
      text += ` option=${this.optionInvert ? '!' : ''}${this.option}`;
    if (this.flagMask !== 0 || this.flagInvert) {
      text += ` flags:${this.flagInvert ? '!' : ''}`;
      if (numeric)
        text += `0x${this.flagMask.toString(16).toUpperCase().padStart(2, '0')}/0x${this.flagCmp.toString(16).toUpperCase().padStart(2, '0')}`;
      else text += `${flagNames(this.flagMask)}/${flagNames(this.flagCmp)}`;
    }
    return text;
  }

  private field(side: 'sport' | 'dport'): PayloadField {
    return `${this.name} ${side}`;
  }

  /** add_nft_tcp: flags first, then the ports (one 4-byte comparison when both are single ports). */
  private nativeExprs(): { exprs: Expr[]; nftText: string | undefined } {
    const exprs: Expr[] = [];
    let nftText: string | undefined;
    if (this.flagMask !== 0)
      exprs.push({
        kind: 'cmp',
        left: [{ selector: { kind: 'payload', field: 'tcp flags' }, mask: this.flagMask }],
        op: this.flagInvert ? 'ne' : 'eq',
        right: { kind: 'number', value: this.flagCmp },
      });
    const s = this.sport;
    const d = this.dport;
    if (s.low !== 0 && s.low === s.high && d.low !== 0 && d.low === d.high && s.invert === d.invert) {
      if (!s.invert) {
        exprs.push(
          portCmpExpr(this.field('sport'), portCmp(s)),
          portCmpExpr(this.field('dport'), portCmp(d)),
        );
      } else {
        // One 4-byte load compared as a whole: matches unless both ports are equal (iptables 1.8.9's behaviour).
        exprs.push({
          kind: 'cmp',
          left: [
            { selector: { kind: 'payload', field: this.field('sport') } },
            { selector: { kind: 'payload', field: this.field('dport') } },
          ],
          op: 'ne',
          right: {
            kind: 'concat',
            parts: [
              { kind: 'number', value: s.low },
              { kind: 'number', value: d.low },
            ],
          },
        });
        nftText = `${this.name} sport != ${s.low} ${this.name} dport != ${d.low}`;
      }
      return { exprs, nftText };
    }
    if (s.low !== 0 || s.high < 0xffff || s.invert) exprs.push(portCmpExpr(this.field('sport'), portCmp(s)));
    if (d.low !== 0 || d.high < 0xffff || d.invert) exprs.push(portCmpExpr(this.field('dport'), portCmp(d)));
    return { exprs, nftText };
  }

  /** What iptables-save prints for the native form after the kernel round trip. */
  native(): NativePorts {
    const s = this.sport;
    const d = this.dport;
    const activeS = s.low !== 0 || s.high < 0xffff || s.invert;
    const activeD = d.low !== 0 || d.high < 0xffff || d.invert;
    return {
      sport: activeS ? readBack(portCmp(s)) : ALL_PORTS,
      dport: activeD ? readBack(portCmp(d)) : ALL_PORTS,
      flags:
        this.flagMask !== 0 ? { mask: this.flagMask, cmp: this.flagCmp, invert: this.flagInvert } : undefined,
    };
  }

  /** Loads a read-back native form into this (empty) match, for iptables-save's merged tcp match. */
  absorb(native: NativePorts): void {
    if (!isAll(native.sport) || native.sport.invert) this.sport = native.sport;
    if (!isAll(native.dport) || native.dport.invert) this.dport = native.dport;
    if (native.flags !== undefined) {
      this.flagMask = native.flags.mask;
      this.flagCmp = native.flags.cmp;
      this.flagInvert = native.flags.invert;
    }
  }

  compile(): Compiled {
    if (this.isNative()) {
      const { exprs, nftText } = this.nativeExprs();
      return nftText === undefined ? { exprs, xlate: undefined } : { exprs, xlate: undefined, nftText };
    }
    // The xt match checks the protocol itself (xt_tcpudp's .proto), which also keeps nft from taking the span
    // for native payload matches.
    const exprs: Expr[] = [
      {
        kind: 'cmp',
        left: [{ selector: { kind: 'meta', key: 'l4proto' } }],
        op: 'eq',
        right: { kind: 'number', value: this.name === 'tcp' ? 6 : 17 },
      },
      ...(this.allZero() ? [] : this.nativeExprs().exprs),
    ];
    return { exprs, xlate: this.xlate() };
  }

  /** tcp_xlate / udp_xlate. */
  private xlate(): string {
    const parts: string[] = [];
    const sport = xlatePorts(`${this.name} sport`, this.sport);
    if (sport !== undefined) parts.push(sport);
    const dport = xlatePorts(`${this.name} dport`, this.dport);
    if (dport !== undefined) parts.push(dport);
    if (this.option !== 0)
      parts.push(`tcp option ${this.option} ${this.optionInvert ? 'missing' : 'exists'}`);
    if (this.flagMask !== 0 || this.flagInvert)
      parts.push(
        `tcp flags ${this.flagInvert ? '!= ' : ''}${flagNamesNft(this.flagCmp)} / ${flagNamesNft(this.flagMask)}`,
      );
    return parts.join(' ');
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const tcpMatch: MatchModule = { name: 'tcp', create: () => new TcpUdpMatch('tcp') };
export const udpMatch: MatchModule = { name: 'udp', create: () => new TcpUdpMatch('udp') };
