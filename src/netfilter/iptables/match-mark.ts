// The mark and connmark matches (libxt_mark.c, libxt_connmark.c): `[!] --mark VALUE[/MASK]` compared as
// (mark & MASK) == VALUE. iptables-nft translates mark to native `meta mark`; connmark stays an xt match.

import type { Expr } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import {
  badValue,
  type Compiled,
  type MatchModule,
  mustBeSpecified,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { hex0x, parseUnsigned } from './names.ts';

/** `VALUE[/MASK]` as xtables_parse_mark_mask reads it. */
export function parseMarkMask(text: string): { value: number; mask: number } | undefined {
  const slash = text.indexOf('/');
  const value = parseUnsigned(slash < 0 ? text : text.slice(0, slash));
  if (value === undefined) return undefined;
  if (slash < 0) return { value, mask: 0xffff_ffff };
  const mask = parseUnsigned(text.slice(slash + 1));
  return mask === undefined ? undefined : { value, mask };
}

/**
 * xtopt_parse_markmask's two errors: a number followed by something other than its `/MASK` is "trailing garbage";
 * anything else unreadable is a bad value.
 */
export function hasTrailingGarbage(text: string): boolean {
  const number = /^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/;
  const slash = text.indexOf('/');
  const head = slash < 0 ? text : text.slice(0, slash);
  const headNumber = number.exec(head);
  if (headNumber !== null && headNumber[0] !== head) return true;
  if (slash < 0) return false;
  const mask = text.slice(slash + 1);
  const maskNumber = number.exec(mask);
  return maskNumber !== null && maskNumber[0] !== mask;
}

export function trailingGarbage(ext: string, option: string): string {
  return `${ext}: trailing garbage after value for option "--${option}".\n`;
}

function markWords(value: number, mask: number): string {
  return mask === 0xffff_ffff ? hex0x(value) : `${hex0x(value)}/${hex0x(mask)}`;
}

abstract class MarkLike implements XtMatch {
  readonly kind = 'match';
  readonly options: readonly OptionDef[] = [{ name: 'mark', arg: true, invert: true }];
  value = 0;
  mask = 0xffff_ffff;
  invert = false;
  given = false;
  abstract readonly name: 'mark' | 'connmark';

  parse(_option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const parsed = parseMarkMask(args[0]!);
    if (parsed === undefined)
      return param(
        hasTrailingGarbage(args[0]!) ? trailingGarbage(this.name, 'mark') : badValue(this.name, 'mark'),
      );
    this.value = parsed.value;
    this.mask = parsed.mask;
    this.invert = invert;
    this.given = true;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.given ? undefined : param(mustBeSpecified(this.name, 'mark'));
  }

  save(): string[] {
    return [...(this.invert ? ['!'] : []), '--mark', markWords(this.value, this.mask)];
  }

  protected cmp(key: 'meta' | 'ct'): Expr {
    const selector =
      key === 'meta' ? ({ kind: 'meta', key: 'mark' } as const) : ({ kind: 'ct', key: 'mark' } as const);
    return {
      kind: 'cmp',
      left: [this.mask === 0xffff_ffff ? { selector } : { selector, mask: this.mask }],
      op: this.invert ? 'ne' : 'eq',
      right: { kind: 'number', value: this.value },
    };
  }

  abstract print(numeric: boolean): string;
  abstract compile(): Compiled;

  usage(): Usage | undefined {
    return undefined;
  }
}

export class MarkMatch extends MarkLike {
  readonly name = 'mark';

  /** mark_mt_print: ` mark match [!]0x1/0xff`. */
  print(): string {
    return ` mark match ${this.invert ? '! ' : ''}${markWords(this.value, this.mask)}`;
  }

  /** Native: meta mark [& MASK] ==/!= VALUE. */
  compile(): Compiled {
    return { exprs: [this.cmp('meta')], xlate: undefined };
  }
}

export class ConnmarkMatch extends MarkLike {
  readonly name = 'connmark';

  /** connmark_mt_print: ` connmark match  0x1` (two spaces without `!`). */
  print(): string {
    return ` connmark match ${this.invert ? '!' : ''} ${markWords(this.value, this.mask)}`;
  }

  compile(): Compiled {
    const op = this.invert ? '!= ' : '';
    const xlate =
      this.mask === 0xffff_ffff
        ? `ct mark ${op}${hex0x(this.value)}`
        : `ct mark and ${hex0x(this.mask)} ${this.invert ? '!=' : '=='} ${hex0x(this.value)}`;
    return { exprs: [this.cmp('ct')], xlate };
  }
}

export const markMatch: MatchModule = { name: 'mark', create: () => new MarkMatch() };
export const connmarkMatch: MatchModule = { name: 'connmark', create: () => new ConnmarkMatch() };
