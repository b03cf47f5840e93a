// The dccp match (libxt_dccp.c): `[!] --sport`/`--dport` ranges, `[!] --dccp-types REQUEST,...,INVALID` and
// `[!] --dccp-option N`; nft lists it through its xlate (dccp sport/dport/type), `xt match dccp` with an option.
// Evaluated as xt_dccp.c's dccp_mt (xt/ext-matches.ts). No DCCP sockets: packetlab only forwards such packets.

import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, ParseContext, Usage, XtMatch } from './extension.ts';
import { onlyOnce } from './extension.ts';
import { parsePortRangeX6, parseUnsigned } from './names.ts';
import { type PortRange, portRangeText, printPortRanges, savePortRanges } from './port-ranges.ts';

/** dccp_pkt_types: the type names by number; INVALID stands for every type from 10 on (bits 10-15). */
const TYPES = [
  'REQUEST',
  'RESPONSE',
  'DATA',
  'ACK',
  'DATAACK',
  'CLOSEREQ',
  'CLOSE',
  'RESET',
  'SYNC',
  'SYNCACK',
];
const INVALID_BITS = 0xfc00;

export class DccpMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'dccp';
  readonly options: readonly OptionDef[] = [
    { name: 'source-port', arg: true, invert: true },
    { name: 'sport', arg: true, invert: true },
    { name: 'destination-port', arg: true, invert: true },
    { name: 'dport', arg: true, invert: true },
    { name: 'dccp-types', arg: true, invert: true },
    { name: 'dccp-option', arg: true, invert: true },
  ];
  sport: PortRange | undefined;
  dport: PortRange | undefined;
  types: { readonly mask: number; readonly invert: boolean } | undefined;
  option: { readonly value: number; readonly invert: boolean } | undefined;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const arg = args[0]!;
    switch (option) {
      case 'source-port':
      case 'sport':
      case 'destination-port':
      case 'dport': {
        const source = option === 'sport' || option === 'source-port';
        if ((source ? this.sport : this.dport) !== undefined)
          return param(onlyOnce('dccp', source ? 'source-port' : 'destination-port'));
        const ports = parsePortRangeX6(arg);
        if (typeof ports === 'string') return param(ports);
        const range = { low: ports[0], high: ports[1], invert };
        if (source) this.sport = range;
        else this.dport = range;
        return undefined;
      }
      case 'dccp-types': {
        if (this.types !== undefined) return param(onlyOnce('dccp', 'dccp-types'));
        let mask = 0;
        for (const word of arg.split(',')) {
          const upper = word.toUpperCase();
          if (upper === 'INVALID') mask |= INVALID_BITS;
          else {
            const type = TYPES.indexOf(upper);
            if (type < 0) return param(`Unknown DCCP type \`${word}'`);
            mask |= 1 << type;
          }
        }
        this.types = { mask, invert };
        return undefined;
      }
      default: {
        if (this.option !== undefined) return param(onlyOnce('dccp', 'dccp-option'));
        const value = parseUnsigned(arg, 255);
        if (value === undefined || value < 1)
          return param('dccp: bad value for option "--dccp-option", or out of range (1-255).\n');
        this.option = { value, invert };
        return undefined;
      }
    }
  }

  finish(): IptError | undefined {
    return undefined;
  }

  /** print_types: the set bits in order, by name (INVALID once for bits 10-15) or by number. */
  private typeWords(numeric: boolean): string {
    const mask = this.types?.mask ?? 0;
    const words: string[] = [];
    for (let bit = 0; bit < 16; bit++) {
      if (!(mask & (1 << bit))) continue;
      if (numeric) words.push(String(bit));
      else if (bit < TYPES.length) words.push(TYPES[bit]!);
      else if (!words.includes('INVALID')) words.push('INVALID');
    }
    return words.join(',');
  }

  save(): string[] {
    const words = savePortRanges(this.sport, this.dport);
    if (this.types !== undefined) {
      if (this.types.invert) words.push('!');
      words.push('--dccp-types', this.typeWords(false));
    }
    if (this.option !== undefined) {
      if (this.option.invert) words.push('!');
      words.push('--dccp-option', String(this.option.value));
    }
    return words;
  }

  print(numeric: boolean): string {
    let text = ` dccp${printPortRanges(this.sport, this.dport)}`;
    if (this.types !== undefined) text += `${this.types.invert ? ' !' : ''} ${this.typeWords(numeric)}`;
    if (this.option !== undefined) text += ` option=${this.option.invert ? '!' : ''}${this.option.value}`;
    return text;
  }

  /** dccp_xlate: ports and types, each as `dccp ...`; no translation with an option (nft has none). */
  private xlate(): string | undefined {
    if (this.option !== undefined) return undefined;
    const parts: string[] = [];
    for (const [label, range] of [
      ['sport', this.sport],
      ['dport', this.dport],
    ] as const) {
      if (range === undefined) continue;
      parts.push(`dccp ${label}${range.invert ? ' !=' : ''} ${portRangeText(range, '-')}`);
    }
    if (this.types !== undefined && this.types.mask !== 0) {
      const names: string[] = [];
      for (let bit = 0; bit < TYPES.length; bit++)
        if (this.types.mask & (1 << bit)) names.push(TYPES[bit]!.toLowerCase());
      if (this.types.mask & INVALID_BITS) names.push('10-15');
      const set = names.length === 1 ? names[0]! : `{ ${names.join(', ')} }`;
      parts.push(`dccp type${this.types.invert ? ' !=' : ''} ${set}`);
    }
    return parts.join(' ');
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'match',
          name: 'dccp',
          options: {
            name: 'dccp',
            sport: this.sport,
            dport: this.dport,
            types: this.types,
            option: this.option,
          },
        },
      ],
      xlate: this.xlate() ?? 'xt match dccp',
    };
  }

  /** xt_check_match: the match is for `-p dccp` only. */
  usage(ctx: ParseContext): Usage | undefined {
    return ctx.proto !== 33 || ctx.protoInvert ? { never: true } : undefined;
  }
}

export const dccpMatch: MatchModule = { name: 'dccp', create: () => new DccpMatch() };
