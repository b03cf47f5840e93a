// The addrtype match (libxt_addrtype.c rev 1, xt_addrtype.c): --src-type/--dst-type route types with optional
// interface limits, evaluated as nft fib type lookups; kube-proxy's `--dst-type LOCAL` selects NodePort traffic.

import type { Expr, FibSelector } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, Usage, XtMatch } from './extension.ts';

/** RTN_* route types in number order; XT_ADDRTYPE_X is 1 << RTN_X. */
const TYPES = [
  'UNSPEC',
  'UNICAST',
  'LOCAL',
  'BROADCAST',
  'ANYCAST',
  'MULTICAST',
  'BLACKHOLE',
  'UNREACHABLE',
  'PROHIBIT',
  'THROW',
  'NAT',
  'XRESOLVE',
] as const;

function parseTypes(text: string): number | string {
  let mask = 0;
  for (const word of text.split(',')) {
    const index = TYPES.indexOf(word.toUpperCase() as (typeof TYPES)[number]);
    if (index < 0) return word;
    mask |= 1 << index;
  }
  return mask;
}

function typeNames(mask: number): string[] {
  return TYPES.filter((_, index) => mask & (1 << index));
}

function typeNumbers(mask: number): number[] {
  return TYPES.map((_, index) => index).filter((index) => mask & (1 << index));
}

interface TypeSel {
  readonly mask: number;
  readonly invert: boolean;
}

export class AddrtypeMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'addrtype';
  readonly options: readonly OptionDef[] = [
    { name: 'src-type', arg: true, invert: true },
    { name: 'dst-type', arg: true, invert: true },
    { name: 'limit-iface-in', arg: false, invert: false },
    { name: 'limit-iface-out', arg: false, invert: false },
  ];
  src: TypeSel | undefined;
  dst: TypeSel | undefined;
  limitIn = false;
  limitOut = false;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    if (option === 'limit-iface-in') this.limitIn = true;
    else if (option === 'limit-iface-out') this.limitOut = true;
    else {
      const mask = parseTypes(args[0]!);
      if (typeof mask === 'string') return param(`addrtype: bad type "${mask}"`);
      if (option === 'src-type') this.src = { mask, invert };
      else this.dst = { mask, invert };
    }
    return undefined;
  }

  finish(): IptError | undefined {
    if (this.src === undefined && this.dst === undefined)
      return param('addrtype: you must specify --src-type or --dst-type');
    if (this.limitIn && this.limitOut)
      return param("addrtype: you can't specify both --limit-iface-in and --limit-iface-out");
    return undefined;
  }

  save(): string[] {
    const words: string[] = [];
    if (this.src !== undefined)
      words.push(...(this.src.invert ? ['!'] : []), '--src-type', typeNames(this.src.mask).join(','));
    if (this.dst !== undefined)
      words.push(...(this.dst.invert ? ['!'] : []), '--dst-type', typeNames(this.dst.mask).join(','));
    if (this.limitIn) words.push('--limit-iface-in');
    if (this.limitOut) words.push('--limit-iface-out');
    return words;
  }

  print(): string {
    let text = ' ADDRTYPE match';
    if (this.src !== undefined)
      text += ` src-type ${this.src.invert ? '!' : ''}${typeNames(this.src.mask).join(',')}`;
    if (this.dst !== undefined)
      text += ` dst-type ${this.dst.invert ? '!' : ''}${typeNames(this.dst.mask).join(',')}`;
    if (this.limitIn) text += ' limit-in';
    if (this.limitOut) text += ' limit-out';
    return text;
  }

  private fib(addr: 'saddr' | 'daddr'): FibSelector {
    const flags: ('saddr' | 'daddr' | 'iif' | 'oif')[] = [addr];
    if (this.limitIn) flags.push('iif');
    if (this.limitOut) flags.push('oif');
    return { kind: 'fib', flags, result: 'type' };
  }

  private lookup(addr: 'saddr' | 'daddr', sel: TypeSel): Expr {
    const numbers = typeNumbers(sel.mask);
    const left = [{ selector: this.fib(addr) }];
    if (numbers.length === 1)
      return {
        kind: 'cmp',
        left,
        op: sel.invert ? 'ne' : 'eq',
        right: { kind: 'number', value: numbers[0]! },
      };
    return {
      kind: 'lookup',
      left,
      negate: sel.invert,
      set: {
        kind: 'anonymous',
        keyType: ['integer'],
        elements: numbers.map((value) => ({ key: { kind: 'number', value }, data: undefined })),
      },
    };
  }

  compile(): Compiled {
    const exprs: Expr[] = [];
    if (this.src !== undefined) exprs.push(this.lookup('saddr', this.src));
    if (this.dst !== undefined) exprs.push(this.lookup('daddr', this.dst));
    return { exprs, xlate: this.xlate() };
  }

  /** addrtype_mt_xlate as iptables 1.8.9 has it: the source types if given, else the destination types. */
  private xlate(): string {
    const sel = this.src ?? this.dst!;
    let text = `fib ${this.src !== undefined ? 'saddr' : 'daddr'}`;
    if (this.limitIn) text += ' . iif';
    else if (this.limitOut) text += ' . oif';
    text += ' type ';
    if (this.src?.invert || this.dst?.invert) text += '!= ';
    const names = typeNames(sel.mask).map((name) => name.toLowerCase());
    text += names.length === 1 ? names[0] : `{ ${names.join(', ')} }`;
    return text;
  }

  /** addrtype_mt_checkentry_v1: the interface limits only where that interface exists. */
  usage(): Usage | undefined {
    if (this.limitIn) return { hooks: ['prerouting', 'input', 'forward'] };
    if (this.limitOut) return { hooks: ['forward', 'output', 'postrouting'] };
    return undefined;
  }
}

export const addrtypeMatch: MatchModule = { name: 'addrtype', create: () => new AddrtypeMatch() };
