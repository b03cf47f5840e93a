// The icmp match (libipt_icmp.c, xt_tcpudp.c: icmp_mt): `--icmp-type TYPE[/CODE]` or a name, which iptables-nft
// keeps as an xt match; nft prints `icmp type NAME` when the type has no code, `xt match icmp` otherwise.

import type { Expr, XtMatchOptions } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, ParseContext, Usage, XtMatch } from './extension.ts';
import { ICMP_NAMES, NFT_ICMP_TYPES, parseIcmpType } from './names.ts';

type IcmpOptions = Extract<XtMatchOptions, { name: 'icmp' }>;

/** icmp_mt for one packet: the type matches (255 = any) and the code is in range, xor invert. */
export function icmpMatches(options: IcmpOptions, type: number, code: number): boolean {
  const hit =
    options.type === 0xff || (type === options.type && code >= options.codeMin && code <= options.codeMax);
  return hit !== options.invert;
}

export class IcmpMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'icmp';
  readonly options: readonly OptionDef[] = [{ name: 'icmp-type', arg: true, invert: true }];
  type = 0xff;
  codeMin = 0;
  codeMax = 0xff;
  invert = false;

  parse(_option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const parsed = parseIcmpType(args[0]!);
    if (typeof parsed === 'string')
      return param(parsed.startsWith('Invalid') ? `Unknown ICMP type \`${args[0]}'` : parsed);
    this.type = parsed.type;
    this.codeMin = parsed.codeMin;
    this.codeMax = parsed.codeMax;
    this.invert = invert;
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  save(): string[] {
    const words = this.invert ? ['!'] : [];
    if (this.type === 0xff) return [...words, '--icmp-type', 'any'];
    let value = `${this.type}`;
    if (this.codeMin === this.codeMax) value += `/${this.codeMin}`;
    else if (this.codeMin !== 0 || this.codeMax !== 0xff) value += `/${this.codeMin}:${this.codeMax}`;
    return [...words, '--icmp-type', value];
  }

  /** icmp_print / print_icmptype. */
  print(numeric: boolean): string {
    let text = ' icmp';
    if (!numeric) {
      const named = ICMP_NAMES.find(
        (entry) =>
          entry.type === this.type && entry.codeMin === this.codeMin && entry.codeMax === this.codeMax,
      );
      if (named !== undefined) return `${text} ${this.invert ? '!' : ''}${named.name}`;
    }
    if (this.invert) text += ' !';
    text += `type ${this.type}`;
    if (this.codeMin === this.codeMax) text += ` code ${this.codeMin}`;
    else if (this.codeMin !== 0 || this.codeMax !== 0xff) text += ` codes ${this.codeMin}-${this.codeMax}`;
    return text;
  }

  private icmpOptions(): IcmpOptions {
    return {
      name: 'icmp',
      type: this.type,
      codeMin: this.codeMin,
      codeMax: this.codeMax,
      invert: this.invert,
    };
  }

  compile(): Compiled {
    const wholeType = this.codeMin === 0 && this.codeMax === 0xff;
    // The xt match checks the protocol itself (ipt_icmp's .proto).
    const exprs: Expr[] = [
      {
        kind: 'cmp',
        left: [{ selector: { kind: 'meta', key: 'l4proto' } }],
        op: 'eq',
        right: { kind: 'number', value: 1 },
      },
    ];
    if (this.type === 0xff && !this.invert) {
      // any
    } else if (wholeType && this.type !== 0xff)
      exprs.push({
        kind: 'cmp',
        left: [{ selector: { kind: 'payload', field: 'icmp type' } }],
        op: this.invert ? 'ne' : 'eq',
        right: { kind: 'number', value: this.type },
      });
    else exprs.push({ kind: 'match', name: 'icmp', options: this.icmpOptions() });
    return { exprs, xlate: this.xlate() };
  }

  /** icmp_xlate: a type without code range only; `any` is the protocol itself. */
  private xlate(): string {
    if (this.type === 0xff) return 'ip protocol icmp';
    if (this.codeMin !== 0 || this.codeMax !== 0xff) return 'xt match icmp';
    const name = NFT_ICMP_TYPES[this.type] ?? `${this.type}`;
    return `icmp type ${this.invert ? '!= ' : ''}${name}`;
  }

  /** xt_check_match: the icmp match is only valid for protocol 1 (the kernel says EINVAL). */
  usage(ctx: ParseContext): Usage | undefined {
    return ctx.proto !== 1 || ctx.protoInvert ? { never: true } : undefined;
  }
}

export const icmpMatch: MatchModule = { name: 'icmp', create: () => new IcmpMatch() };
