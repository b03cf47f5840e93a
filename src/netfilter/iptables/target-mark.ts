// The MARK and CONNMARK targets (libxt_MARK.c rev 2, libxt_CONNMARK.c rev 1/2): every form is stored as
// `(mark & ~mask) ^ value` (MARK --or-mark 0x4000 is --set-xmark 0x4000/0x4000), CONNMARK also saves and
// restores between the packet mark and the connection mark with masks. No --left/right-shift-mark.

import type { Value } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import {
  badValue,
  type Compiled,
  cannotCombine,
  type OptionDef,
  onlyOnce,
  type TargetModule,
  type Usage,
  type XtTarget,
} from './extension.ts';
import { parseMarkMask } from './match-mark.ts';
import { hex0x, parseUnsigned } from './names.ts';

const ALL = 0xffff_ffff;

/** mark_tg_print / connmark_tg_print for the set family. */
function printSet(label: string, value: number, mask: number): string {
  if (value === 0) return ` ${label} and ${hex0x(~mask >>> 0)}`;
  if (value === mask) return ` ${label} or ${hex0x(value)}`;
  if (mask === 0) return ` ${label} xor ${hex0x(value)}`;
  if (mask === ALL) return ` ${label} set ${hex0x(value)}`;
  return ` ${label} xset ${hex0x(value)}/${hex0x(mask)}`;
}

/** Parses the --set-xmark/--set-mark/--and/or/xor-mark family into (value, mask). */
function parseSetFamily(
  ext: string,
  option: string,
  text: string,
): { value: number; mask: number } | IptError | undefined {
  if (option === 'set-xmark' || option === 'set-mark') {
    const parsed = parseMarkMask(text);
    if (parsed === undefined) return param(badValue(ext, option));
    if (option === 'set-xmark') return parsed;
    return { value: parsed.value, mask: (parsed.mask | parsed.value) >>> 0 };
  }
  const value = parseUnsigned(text);
  if (value === undefined) return param(badValue(ext, option));
  if (option === 'and-mark') return { value: 0, mask: ~value >>> 0 };
  if (option === 'or-mark') return { value, mask: value };
  if (option === 'xor-mark') return { value, mask: 0 };
  return undefined;
}

const SET_FAMILY: readonly OptionDef[] = [
  { name: 'set-xmark', arg: true, invert: false },
  { name: 'set-mark', arg: true, invert: false },
  { name: 'and-mark', arg: true, invert: false },
  { name: 'or-mark', arg: true, invert: false },
  { name: 'xor-mark', arg: true, invert: false },
];

/**
 * xtables_options_fcheck's exclusions: the first option given, in the option table's order, that excludes
 * another given one, named with the first of those in option-id order.
 */
function conflict(
  ext: string,
  given: ReadonlySet<string>,
  tableOrder: readonly string[],
  idOrder: readonly string[],
  excludes: (option: string) => readonly string[],
): IptError | undefined {
  for (const option of tableOrder) {
    if (!given.has(option)) continue;
    const other = idOrder.find(
      (candidate) => candidate !== option && given.has(candidate) && excludes(option).includes(candidate),
    );
    if (other !== undefined) return param(cannotCombine(ext, option, other));
  }
  return undefined;
}

const MARK_OPERATIONS = ['set-xmark', 'set-mark', 'and-mark', 'or-mark', 'xor-mark'];
/** libxt_MARK.c's option ids: O_SET_MARK, O_AND_MARK, O_OR_MARK, O_XOR_MARK, O_SET_XMARK. */
const MARK_IDS = ['set-mark', 'and-mark', 'or-mark', 'xor-mark', 'set-xmark'];
const CONNMARK_OPERATIONS = [...MARK_OPERATIONS, 'save-mark', 'restore-mark'];
const CONNMARK_TABLE = [...CONNMARK_OPERATIONS, 'ctmask', 'nfmask', 'mask'];
/** libxt_CONNMARK.c's option ids (O_SET_MARK, O_SAVE_MARK, O_RESTORE_MARK, ...). */
const CONNMARK_IDS = [
  'set-mark',
  'save-mark',
  'restore-mark',
  'and-mark',
  'or-mark',
  'xor-mark',
  'set-xmark',
  'ctmask',
  'nfmask',
  'mask',
];

function connmarkExcludes(option: string): readonly string[] {
  if (CONNMARK_OPERATIONS.includes(option)) return CONNMARK_OPERATIONS;
  return option === 'mask' ? ['ctmask', 'nfmask'] : ['mask'];
}

/** XTTYPE_UINT32's range message. */
function badUint32(ext: string, option: string): string {
  return `${ext}: bad value for option "--${option}", or out of range (0-4294967295).\n`;
}

/** `(key & ~mask) ^ value` as a statement source. */
function masked(selector: Value['selector'], value: number, mask: number): Value {
  return { selector, mask: ~mask >>> 0, xor: value };
}

export class MarkTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'MARK';
  readonly listName = 'MARK';
  readonly options = SET_FAMILY;
  value = 0;
  mask = 0;
  private readonly given = new Set<string>();

  parse(option: string, args: readonly string[]): IptError | undefined {
    if (this.given.has(option)) return param(onlyOnce('MARK', option));
    const parsed = parseSetFamily('MARK', option, args[0]!);
    if (parsed === undefined) return undefined;
    if ('kind' in parsed) return parsed;
    this.given.add(option);
    this.value = parsed.value;
    this.mask = parsed.mask;
    return undefined;
  }

  finish(): IptError | undefined {
    const error = conflict('MARK', this.given, MARK_OPERATIONS, MARK_IDS, () => MARK_OPERATIONS);
    if (error !== undefined) return error;
    if (this.given.size === 0)
      return param('MARK: One of the --set-xmark, --{and,or,xor,set}-mark options is required');
    return undefined;
  }

  save(): string[] {
    return ['--set-xmark', `${hex0x(this.value)}/${hex0x(this.mask)}`];
  }

  print(): string {
    return printSet('MARK', this.value, this.mask);
  }

  compile(): Compiled {
    const source =
      this.mask === ALL
        ? ({ kind: 'constant', value: this.value } as const)
        : ({ kind: 'value', value: masked({ kind: 'meta', key: 'mark' }, this.value, this.mask) } as const);
    return { exprs: [{ kind: 'meta-set', key: 'mark', source }], xlate: `meta mark set ${this.xlate()}` };
  }

  /** mark_tg_xlate. */
  private xlate(): string {
    if (this.mask === ALL) return hex0x(this.value);
    if (this.value === 0) return `mark and ${hex0x(~this.mask >>> 0)}`;
    if (this.value === this.mask) return `mark or ${hex0x(this.value)}`;
    if (this.mask === 0) return `mark xor ${hex0x(this.value)}`;
    return `mark and ${hex0x(~this.mask >>> 0)} xor ${hex0x(this.value)}`;
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export class ConnmarkTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'CONNMARK';
  readonly listName = 'CONNMARK';
  readonly options: readonly OptionDef[] = [
    ...SET_FAMILY,
    { name: 'save-mark', arg: false, invert: false },
    { name: 'restore-mark', arg: false, invert: false },
    { name: 'mask', arg: true, invert: false },
    { name: 'nfmask', arg: true, invert: false },
    { name: 'ctmask', arg: true, invert: false },
  ];
  mode: 'set' | 'save' | 'restore' | undefined;
  ctmark = 0;
  ctmask = ALL;
  nfmask = ALL;
  private readonly given = new Set<string>();

  parse(option: string, args: readonly string[]): IptError | undefined {
    const text = args[0] ?? '';
    if (this.given.has(option)) return param(onlyOnce('CONNMARK', option));
    this.given.add(option);
    if (option === 'save-mark' || option === 'restore-mark') {
      this.mode = option === 'save-mark' ? 'save' : 'restore';
      return undefined;
    }
    if (option === 'mask' || option === 'nfmask' || option === 'ctmask') {
      const value = parseUnsigned(text);
      if (value === undefined) return param(badUint32('CONNMARK', option));
      if (option !== 'ctmask') this.nfmask = value;
      if (option !== 'nfmask') this.ctmask = value;
      return undefined;
    }
    const parsed = parseSetFamily('CONNMARK', option, text);
    if (parsed === undefined) return undefined;
    if ('kind' in parsed) return parsed;
    this.mode = 'set';
    this.ctmark = parsed.value;
    this.setMask = parsed.mask;
    return undefined;
  }

  /** The set family's mask, which --nfmask/--ctmask/--mask do not change. */
  private setMask = ALL;

  finish(): IptError | undefined {
    const error = conflict('CONNMARK', this.given, CONNMARK_TABLE, CONNMARK_IDS, connmarkExcludes);
    if (error !== undefined) return error;
    if (this.mode === undefined) return param('CONNMARK target: No operation specified');
    if (this.mode === 'set') this.ctmask = this.setMask;
    return undefined;
  }

  save(): string[] {
    if (this.mode === 'set') return ['--set-xmark', `${hex0x(this.ctmark)}/${hex0x(this.ctmask)}`];
    return [
      this.mode === 'save' ? '--save-mark' : '--restore-mark',
      '--nfmask',
      hex0x(this.nfmask),
      '--ctmask',
      hex0x(this.ctmask),
    ];
  }

  print(): string {
    if (this.mode === 'set') return printSet('CONNMARK', this.ctmark, this.ctmask);
    const verb = this.mode === 'save' ? 'save' : 'restore';
    if (this.nfmask === ALL && this.ctmask === ALL) return ` CONNMARK ${verb}`;
    if (this.nfmask === this.ctmask) return ` CONNMARK ${verb} mask ${hex0x(this.nfmask)}`;
    if (this.mode === 'save')
      return ` CONNMARK save nfmask ${hex0x(this.nfmask)} ctmask ~${hex0x(this.ctmask)}`;
    return ` CONNMARK restore ctmask ${hex0x(this.ctmask)} nfmask ~${hex0x(this.nfmask)}`;
  }

  compile(): Compiled {
    const ctMark = { kind: 'ct', key: 'mark' } as const;
    const metaMark = { kind: 'meta', key: 'mark' } as const;
    if (this.mode === 'set') {
      const source =
        this.ctmask === ALL
          ? ({ kind: 'constant', value: this.ctmark } as const)
          : ({ kind: 'value', value: masked(ctMark, this.ctmark, this.ctmask) } as const);
      return { exprs: [{ kind: 'ct-set', key: 'mark', source }], xlate: `ct mark set ${this.setXlate()}` };
    }
    const same = this.nfmask === this.ctmask;
    if (this.mode === 'save') {
      // ctmark = (ctmark & ~ctmask) ^ (mark & nfmask)
      const source =
        this.nfmask === ALL && this.ctmask === ALL
          ? ({ kind: 'value', value: { selector: metaMark } } as const)
          : ({
              kind: 'xor',
              value: { selector: ctMark, mask: ~this.ctmask >>> 0 },
              other: { selector: metaMark, mask: this.nfmask },
            } as const);
      const xlate = !same
        ? 'xt target CONNMARK'
        : this.nfmask === ALL
          ? 'ct mark set mark'
          : `ct mark set mark and ${hex0x(this.nfmask)}`;
      return { exprs: [{ kind: 'ct-set', key: 'mark', source }], xlate };
    }
    // mark = (mark & ~nfmask) ^ (ctmark & ctmask)
    const source =
      this.nfmask === ALL && this.ctmask === ALL
        ? ({ kind: 'value', value: { selector: ctMark } } as const)
        : ({
            kind: 'xor',
            value: { selector: metaMark, mask: ~this.nfmask >>> 0 },
            other: { selector: ctMark, mask: this.ctmask },
          } as const);
    const xlate = !same
      ? 'xt target CONNMARK'
      : this.ctmask === ALL
        ? 'meta mark set ct mark'
        : `meta mark set ct mark and ${hex0x(this.ctmask)}`;
    return { exprs: [{ kind: 'meta-set', key: 'mark', source }], xlate };
  }

  /** connmark_tg_xlate for the set family. */
  private setXlate(): string {
    if (this.ctmask === ALL) return hex0x(this.ctmark);
    if (this.ctmark === 0) return `ct mark and ${hex0x(~this.ctmask >>> 0)}`;
    if (this.ctmark === this.ctmask) return `ct mark or ${hex0x(this.ctmark)}`;
    if (this.ctmask === 0) return `ct mark xor ${hex0x(this.ctmark)}`;
    return `ct mark xor ${hex0x(this.ctmark)} and ${hex0x(~this.ctmask >>> 0)}`;
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const markTarget: TargetModule = { name: 'MARK', create: () => new MarkTarget() };
export const connmarkTarget: TargetModule = { name: 'CONNMARK', create: () => new ConnmarkTarget() };
