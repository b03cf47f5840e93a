// The length match (libxt_length.c): `[!] --length N[:M]`, the IP packet's length; iptables-nft writes it natively
// as `meta length N-M`. A reversed range is kept (and never matches), as iptables keeps it.

import type { Expr } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type MatchModule,
  mustBeSpecified,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';

export class LengthMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'length';
  readonly options: readonly OptionDef[] = [{ name: 'length', arg: true, invert: true }];
  min = 0;
  max = 0xffff;
  invert = false;
  given = false;

  parse(_option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0]!;
    const parts = text.split(':');
    if (parts.length > 2) return param('length: Too many components for option "--length" (max: 2)\n');
    const number = (word: string, missing: number): number | undefined =>
      word === '' ? missing : /^[0-9]+$/.test(word) && Number(word) <= 0xffff ? Number(word) : undefined;
    const min = number(parts[0]!, 0);
    const max = parts.length === 1 ? min : number(parts[1]!, 0xffff);
    const bad = min === undefined ? parts[0] : max === undefined || parts.length > 2 ? parts[1] : undefined;
    if (bad !== undefined || min === undefined || max === undefined)
      return param(`length: bad value for option "--length" near "${bad}", or out of range (0-65535).\n`);
    this.min = min;
    this.max = max;
    this.invert = invert;
    this.given = true;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.given ? undefined : param(mustBeSpecified('length', 'length'));
  }

  private range(): string {
    return this.min === this.max ? String(this.min) : `${this.min}:${this.max}`;
  }

  save(): string[] {
    return [...(this.invert ? ['!'] : []), '--length', this.range()];
  }

  print(): string {
    return ` length ${this.invert ? '!' : ''}${this.range()}`;
  }

  compile(): Compiled {
    const expr: Expr = {
      kind: 'cmp',
      left: [{ selector: { kind: 'meta', key: 'length' } }],
      op: this.invert ? 'ne' : 'eq',
      right:
        this.min === this.max
          ? { kind: 'number', value: this.min }
          : { kind: 'range', low: this.min, high: this.max },
    };
    return { exprs: [expr], xlate: undefined };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const lengthMatch: MatchModule = { name: 'length', create: () => new LengthMatch() };
