// The iprange match (libxt_iprange.c rev 1, IPv4): `[!] --src-range A-B`, `[!] --dst-range A-B`; iptables-nft
// writes it natively as `ip saddr A-B`. A reversed range is accepted with the kernel's warning and never matches.

import { formatIpv4, parseIpv4 } from '../../wire/address.ts';
import type { Expr } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, Usage, XtMatch } from './extension.ts';

interface Range {
  readonly low: number;
  readonly high: number;
  readonly invert: boolean;
}

export class IprangeMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'iprange';
  readonly options: readonly OptionDef[] = [
    { name: 'src-range', arg: true, invert: true },
    { name: 'dst-range', arg: true, invert: true },
  ];
  src: Range | undefined;
  dst: Range | undefined;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0]!;
    const dash = text.indexOf('-');
    const lowText = dash < 0 ? text : text.slice(0, dash);
    const highText = dash < 0 ? text : text.slice(dash + 1);
    const low = parseIpv4(lowText);
    if (low === undefined) return param(`iprange: Bad value for "--${option}" option: "${lowText}"`);
    const high = parseIpv4(highText);
    if (high === undefined) return param(`iprange: Bad value for "--${option}" option: "${highText}"`);
    const range = { low: low >>> 0, high: high >>> 0, invert };
    if (option === 'src-range') this.src = range;
    else this.dst = range;
    return undefined;
  }

  finish(): IptError | undefined {
    if (this.src === undefined && this.dst === undefined)
      return param("iprange match: You must specify `--src-range' or `--dst-range'");
    return undefined;
  }

  /** iprange_mt_check's warning for a reversed range (the kernel log; iptables prints nothing). */
  warnings(): string[] {
    return [this.src, this.dst]
      .filter((range): range is Range => range !== undefined && range.low > range.high)
      .map(
        (range) =>
          `xt_iprange: range ${formatIpv4(range.low)}-${formatIpv4(range.high)} is reversed and will never match`,
      );
  }

  private static text(range: Range): string {
    return `${formatIpv4(range.low)}-${formatIpv4(range.high)}`;
  }

  save(): string[] {
    const words: string[] = [];
    for (const [option, range] of [
      ['--src-range', this.src],
      ['--dst-range', this.dst],
    ] as const) {
      if (range === undefined) continue;
      if (range.invert) words.push('!');
      words.push(option, IprangeMatch.text(range));
    }
    return words;
  }

  print(): string {
    let text = '';
    if (this.src !== undefined)
      text += ` source IP range ${this.src.invert ? '! ' : ''}${IprangeMatch.text(this.src)}`;
    if (this.dst !== undefined)
      text += ` destination IP range ${this.dst.invert ? '! ' : ''}${IprangeMatch.text(this.dst)}`;
    return text;
  }

  compile(): Compiled {
    const exprs: Expr[] = [];
    for (const [field, range] of [
      ['ip saddr', this.src],
      ['ip daddr', this.dst],
    ] as const) {
      if (range === undefined) continue;
      exprs.push({
        kind: 'cmp',
        left: [{ selector: { kind: 'payload', field } }],
        op: range.invert ? 'ne' : 'eq',
        right: { kind: 'range', low: range.low, high: range.high },
      });
    }
    return { exprs, xlate: undefined };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const iprangeMatch: MatchModule = { name: 'iprange', create: () => new IprangeMatch() };
