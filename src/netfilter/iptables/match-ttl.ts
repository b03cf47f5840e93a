// The ttl match (libipt_ttl.c): `[!] --ttl-eq N`, `--ttl-gt N`, `--ttl-lt N` (one of them); iptables-nft writes it
// natively as `ip ttl N`, `ip ttl gt N`, `ip ttl lt N`.

import type { CmpOp } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotBeInverted,
  cannotCombine,
  type MatchModule,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';

type TtlOption = 'ttl-eq' | 'ttl-gt' | 'ttl-lt';

const SYMBOL: Readonly<Record<TtlOption, string>> = { 'ttl-eq': '==', 'ttl-gt': '>', 'ttl-lt': '<' };

export class TtlMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'ttl';
  readonly options: readonly OptionDef[] = [
    { name: 'ttl-eq', arg: true, invert: true },
    { name: 'ttl-gt', arg: true, invert: true },
    { name: 'ttl-lt', arg: true, invert: true },
  ];
  mode: TtlOption | undefined;
  ttl = 0;
  invert = false;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const which = option as TtlOption;
    if (invert && which !== 'ttl-eq') return param(cannotBeInverted('ttl', which));
    if (this.mode !== undefined) return param(cannotCombine('ttl', which, this.mode));
    const text = args[0]!;
    if (!/^[0-9]+$/.test(text) || Number(text) > 255)
      return param(`ttl: bad value for option "--${which}", or out of range (0-255).\n`);
    this.mode = which;
    this.ttl = Number(text);
    this.invert = invert;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.mode === undefined
      ? param("TTL match: You must specify one of `--ttl-eq', `--ttl-lt', `--ttl-gt")
      : undefined;
  }

  save(): string[] {
    return [...(this.invert ? ['!'] : []), `--${this.mode}`, String(this.ttl)];
  }

  print(): string {
    return ` TTL match TTL ${this.invert ? '!=' : SYMBOL[this.mode!]} ${this.ttl}`;
  }

  compile(): Compiled {
    const op: CmpOp =
      this.mode === 'ttl-gt' ? 'gt' : this.mode === 'ttl-lt' ? 'lt' : this.invert ? 'ne' : 'eq';
    return {
      exprs: [
        {
          kind: 'cmp',
          left: [{ selector: { kind: 'payload', field: 'ip ttl' } }],
          op,
          right: { kind: 'number', value: this.ttl },
        },
      ],
      xlate: undefined,
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const ttlMatch: MatchModule = { name: 'ttl', create: () => new TtlMatch() };
