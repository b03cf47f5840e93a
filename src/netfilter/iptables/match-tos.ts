// The tos match (libxt_tos.c rev 1): `[!] --tos VALUE[/MASK]` or a symbolic TOS name (mask 0x3f), compared as
// (tos & MASK) == VALUE; nft has no translation for it (`xt match tos`).

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type MatchModule,
  mustBeSpecified,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { parseUnsigned } from './names.ts';

/** tos_symbol_names (libxt_tos.c / tos_values.c). */
export const TOS_NAMES: readonly (readonly [string, number])[] = [
  ['Minimize-Delay', 0x10],
  ['Maximize-Throughput', 0x08],
  ['Maximize-Reliability', 0x04],
  ['Minimize-Cost', 0x02],
  ['Normal-Service', 0x00],
];

/** tos_parse_numeric then tos_parse_symbolic: `VALUE[/MASK]` up to 0xff, else a name with mask 0x3f. */
export function parseTos(text: string): { value: number; mask: number } | IptError {
  const slash = text.indexOf('/');
  const value = parseUnsigned(slash < 0 ? text : text.slice(0, slash), 0xff);
  if (value !== undefined) {
    if (slash < 0) return { value, mask: 0xff };
    const mask = parseUnsigned(text.slice(slash + 1), 0xff);
    if (mask !== undefined) return { value, mask };
  }
  const name = TOS_NAMES.find(([candidate]) => candidate.toLowerCase() === text.toLowerCase());
  if (name === undefined) return param(`Symbolic name "${text}" is unknown`);
  return { value: name[1], mask: 0x3f };
}

export function hex2(value: number): string {
  return `0x${value.toString(16).padStart(2, '0')}`;
}

export class TosMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'tos';
  readonly options: readonly OptionDef[] = [{ name: 'tos', arg: true, invert: true }];
  value = 0;
  mask = 0xff;
  invert = false;
  given = false;

  parse(_option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const parsed = parseTos(args[0]!);
    if ('kind' in parsed) return parsed;
    this.value = parsed.value;
    this.mask = parsed.mask;
    this.invert = invert;
    this.given = true;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.given ? undefined : param(mustBeSpecified('tos', 'tos'));
  }

  save(): string[] {
    return [...(this.invert ? ['!'] : []), '--tos', `${hex2(this.value)}/${hex2(this.mask)}`];
  }

  /** tos_mt_print_v1: ` tos match` and `!`, then a symbolic name (mask 0x3f, not -n) or VALUE/MASK unspaced. */
  print(numeric: boolean): string {
    const name = TOS_NAMES.find(([, value]) => value === this.value);
    const text =
      !numeric && this.mask === 0x3f && name !== undefined
        ? ` ${name[0]}`
        : `${hex2(this.value)}/${hex2(this.mask)}`;
    return ` tos match${this.invert ? '!' : ''}${text}`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'match',
          name: 'tos',
          options: { name: 'tos', value: this.value, mask: this.mask, invert: this.invert },
        },
      ],
      xlate: 'xt match tos',
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const tosMatch: MatchModule = { name: 'tos', create: () => new TosMatch() };
