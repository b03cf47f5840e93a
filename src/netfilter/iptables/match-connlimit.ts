// The connlimit match (libxt_connlimit.c rev 1): `--connlimit-upto N` / `--connlimit-above N` connections per
// source (or with --connlimit-daddr destination) address under --connlimit-mask; an xt match nft lists as such.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotCombine,
  type MatchModule,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { maskOf, parseDecimal } from './names.ts';

export class ConnlimitMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'connlimit';
  readonly options: readonly OptionDef[] = [
    { name: 'connlimit-upto', arg: true, invert: true },
    { name: 'connlimit-above', arg: true, invert: true },
    { name: 'connlimit-mask', arg: true, invert: false },
    { name: 'connlimit-saddr', arg: false, invert: false },
    { name: 'connlimit-daddr', arg: false, invert: false },
  ];
  limit = 0;
  /** XT_CONNLIMIT_INVERT: the count must be at most the limit (upto). */
  upto = false;
  mask = 32;
  daddr = false;
  private readonly given = new Set<string>();

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    this.given.add(option);
    switch (option) {
      case 'connlimit-upto':
      case 'connlimit-above': {
        const value = parseDecimal(args[0]!);
        if (value === undefined)
          return param(`connlimit: bad value for option "--${option}", or out of range (0-4294967295).\n`);
        this.limit = value;
        this.upto = (option === 'connlimit-upto') !== invert;
        return undefined;
      }
      case 'connlimit-mask': {
        const value = parseDecimal(args[0]!, 128);
        if (value === undefined)
          return param('connlimit: bad value for option "--connlimit-mask", or out of range (0-128).\n');
        this.mask = Math.min(value, 32);
        return undefined;
      }
      case 'connlimit-saddr':
        this.daddr = false;
        return undefined;
      case 'connlimit-daddr':
        this.daddr = true;
        return undefined;
    }
    return undefined;
  }

  finish(): IptError | undefined {
    if (this.given.has('connlimit-upto') && this.given.has('connlimit-above'))
      return param(cannotCombine('connlimit', 'connlimit-upto', 'connlimit-above'));
    if (this.given.has('connlimit-saddr') && this.given.has('connlimit-daddr'))
      return param(cannotCombine('connlimit', 'connlimit-saddr', 'connlimit-daddr'));
    if (!this.given.has('connlimit-upto') && !this.given.has('connlimit-above'))
      return param('You must specify "--connlimit-above" or "--connlimit-upto".');
    return undefined;
  }

  save(): string[] {
    return [
      this.upto ? '--connlimit-upto' : '--connlimit-above',
      `${this.limit}`,
      '--connlimit-mask',
      `${this.mask}`,
      this.daddr ? '--connlimit-daddr' : '--connlimit-saddr',
    ];
  }

  print(): string {
    return ` #conn ${this.daddr ? 'dst' : 'src'}/${this.mask} ${this.upto ? '<=' : '>'} ${this.limit}`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'match',
          name: 'connlimit',
          options: {
            name: 'connlimit',
            limit: this.limit,
            mask: maskOf(this.mask),
            daddr: this.daddr,
            above: !this.upto,
          },
        },
      ],
      xlate: 'xt match connlimit',
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const connlimitMatch: MatchModule = { name: 'connlimit', create: () => new ConnlimitMatch() };
