// The ecn match (libxt_ecn.c): `[!] --ecn-tcp-cwr`, `[!] --ecn-tcp-ece` (TCP flags, needs -p tcp) and
// `[!] --ecn-ip-ect 0-3` (the IP header's ECN field); nft lists its xlate (tcp flags cwr, ip ecn ect1...).

import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, ParseContext, Usage, XtMatch } from './extension.ts';
import { parseUnsigned } from './names.ts';

/** nft's ip ecn names by value. */
const ECN_NAMES = ['not-ect', 'ect1', 'ect0', 'ce'];

export class EcnMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'ecn';
  readonly options: readonly OptionDef[] = [
    { name: 'ecn-tcp-cwr', arg: false, invert: true },
    { name: 'ecn-tcp-ece', arg: false, invert: true },
    { name: 'ecn-ip-ect', arg: true, invert: true },
  ];
  cwr: { invert: boolean } | undefined;
  ece: { invert: boolean } | undefined;
  ect: { value: number; invert: boolean } | undefined;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    if (option === 'ecn-tcp-cwr') this.cwr = { invert };
    else if (option === 'ecn-tcp-ece') this.ece = { invert };
    else {
      const value = parseUnsigned(args[0]!, 3);
      if (value === undefined)
        return param('ecn: bad value for option "--ecn-ip-ect", or out of range (0-3).\n');
      this.ect = { value, invert };
    }
    return undefined;
  }

  finish(): IptError | undefined {
    if (this.cwr === undefined && this.ece === undefined && this.ect === undefined)
      return param('ECN match: some option required');
    return undefined;
  }

  save(): string[] {
    const words: string[] = [];
    if (this.ece) words.push(...(this.ece.invert ? ['!'] : []), '--ecn-tcp-ece');
    if (this.cwr) words.push(...(this.cwr.invert ? ['!'] : []), '--ecn-tcp-cwr');
    if (this.ect) words.push(...(this.ect.invert ? ['!'] : []), '--ecn-ip-ect', `${this.ect.value}`);
    return words;
  }

  print(): string {
    let text = ' ECN match';
    if (this.ece) text += ` ${this.ece.invert ? '!' : ''}ECE`;
    if (this.cwr) text += ` ${this.cwr.invert ? '!' : ''}CWR`;
    if (this.ect) text += ` ${this.ect.invert ? '!' : ''}ECT=${this.ect.value}`;
    return text;
  }

  /** ecn_xlate as iptables 1.8.9 has it: one `!` anywhere inverts every part. */
  private xlate(): string {
    const not = this.ece?.invert || this.cwr?.invert || this.ect?.invert ? '!= ' : '';
    const parts: string[] = [];
    if (this.ece) parts.push(`tcp flags ${not}ecn`);
    if (this.cwr) parts.push(`tcp flags ${not}cwr`);
    if (this.ect) parts.push(`ip ecn ${not}${ECN_NAMES[this.ect.value]}`);
    return parts.join(' ');
  }

  compile(): Compiled {
    return {
      exprs: [
        { kind: 'match', name: 'ecn', options: { name: 'ecn', cwr: this.cwr, ece: this.ece, ect: this.ect } },
      ],
      xlate: this.xlate(),
    };
  }

  /** ecn_mt_check4: the TCP tests need `-p tcp`. */
  usage(ctx: ParseContext): Usage | undefined {
    const tcp = this.cwr !== undefined || this.ece !== undefined;
    return tcp && (ctx.proto !== 6 || ctx.protoInvert) ? { never: true } : undefined;
  }
}

export const ecnMatch: MatchModule = { name: 'ecn', create: () => new EcnMatch() };
