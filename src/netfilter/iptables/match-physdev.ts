// The physdev match (libxt_physdev.c, xt_physdev.c): `[!] --physdev-in/--physdev-out NAME[+]`, `[!] --physdev-is-in`,
// `[!] --physdev-is-out`, `[!] --physdev-is-bridged`, the bridge ports br_netfilter recorded for a bridged IPv4
// frame. An xt match for iptables-nft (`xt match physdev`). Locally generated packets leaving by a bridge carry
// no ports in packetlab.

import type { XtMatchOptions } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type MatchModule,
  type OptionDef,
  onlyOnce,
  type Usage,
  type XtMatch,
} from './extension.ts';

/** XT_PHYSDEV_OP_* bits. */
export const PHYSDEV_IN = 1;
export const PHYSDEV_OUT = 2;
export const PHYSDEV_BRIDGED = 4;
export const PHYSDEV_ISIN = 8;
export const PHYSDEV_ISOUT = 16;

const BIT_OF: Readonly<Record<string, number>> = {
  'physdev-in': PHYSDEV_IN,
  'physdev-out': PHYSDEV_OUT,
  'physdev-is-bridged': PHYSDEV_BRIDGED,
  'physdev-is-in': PHYSDEV_ISIN,
  'physdev-is-out': PHYSDEV_ISOUT,
};

/** ifname_compare_aligned with xtables_parse_interface's mask: `name+` is a prefix, else the whole name. */
function portNameMatches(port: string, pattern: string): boolean {
  if (pattern.endsWith('+')) return port.startsWith(pattern.slice(0, -1));
  return port === pattern;
}

/**
 * physdev_mt for a packet whose bridge ports are `physIn`/`physOut` (names; undefined: none): a packet that
 * never met a bridge (`bridged` false) matches only options that are all inverted.
 */
export function physdevMatches(
  options: Extract<XtMatchOptions, { name: 'physdev' }>,
  bridged: boolean,
  physIn: string | undefined,
  physOut: string | undefined,
): boolean {
  const { bitmask, invert } = options;
  if (!bridged) return (bitmask & ~invert) === 0;
  const on = (bit: number) => (bitmask & bit) !== 0;
  const inverted = (bit: number) => (invert & bit) !== 0;
  if (on(PHYSDEV_BRIDGED) && (physOut !== undefined) === inverted(PHYSDEV_BRIDGED)) return false;
  if (on(PHYSDEV_ISIN) && (physIn === undefined) !== inverted(PHYSDEV_ISIN)) return false;
  if (on(PHYSDEV_ISOUT) && (physOut === undefined) !== inverted(PHYSDEV_ISOUT)) return false;
  if (on(PHYSDEV_IN) && portNameMatches(physIn ?? '', options.physIn) === inverted(PHYSDEV_IN)) return false;
  if (on(PHYSDEV_OUT) && portNameMatches(physOut ?? '', options.physOut) === inverted(PHYSDEV_OUT))
    return false;
  return true;
}

export class PhysdevMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'physdev';
  readonly options: readonly OptionDef[] = Object.keys(BIT_OF).map((name) => ({
    name,
    arg: name === 'physdev-in' || name === 'physdev-out',
    invert: true,
  }));
  bitmask = 0;
  invert = 0;
  physIn = '';
  physOut = '';

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const bit = BIT_OF[option]!;
    if (this.bitmask & bit) return param(onlyOnce('physdev', option));
    if (bit === PHYSDEV_IN || bit === PHYSDEV_OUT) {
      const name = args[0]!;
      // xtables_parse_interface.
      if (name.length >= 16) return param(`interface name \`${name}' must be shorter than IFNAMSIZ (15)`);
      if (bit === PHYSDEV_IN) this.physIn = name;
      else this.physOut = name;
    }
    this.bitmask |= bit;
    if (invert) this.invert |= bit;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.bitmask === 0 ? param('PHYSDEV: no physdev option specified') : undefined;
  }

  /** physdev_save's order: is-in, in, is-out, out, is-bridged. */
  save(): string[] {
    const words: string[] = [];
    const item = (bit: number, option: string, value?: string) => {
      if (!(this.bitmask & bit)) return;
      if (this.invert & bit) words.push('!');
      words.push(`--${option}`);
      if (value !== undefined) words.push(value);
    };
    item(PHYSDEV_ISIN, 'physdev-is-in');
    item(PHYSDEV_IN, 'physdev-in', this.physIn);
    item(PHYSDEV_ISOUT, 'physdev-is-out');
    item(PHYSDEV_OUT, 'physdev-out', this.physOut);
    item(PHYSDEV_BRIDGED, 'physdev-is-bridged');
    return words;
  }

  /** physdev_print: ` PHYSDEV match` and the saved words. */
  print(): string {
    return ` PHYSDEV match ${this.save().join(' ')}`;
  }

  compile(): Compiled {
    const options: XtMatchOptions = {
      name: 'physdev',
      bitmask: this.bitmask,
      invert: this.invert,
      physIn: this.physIn,
      physOut: this.physOut,
    };
    return { exprs: [{ kind: 'match', name: 'physdev', options }], xlate: 'xt match physdev' };
  }

  /**
   * physdev_mt_check: an output port (or is-out) that does not also require a bridged packet cannot be known
   * in OUTPUT.
   */
  usage(): Usage | undefined {
    const outputSide = (this.bitmask & (PHYSDEV_OUT | PHYSDEV_ISOUT)) !== 0;
    const bridgedOnly = (this.bitmask & PHYSDEV_BRIDGED) !== 0 && (this.invert & PHYSDEV_BRIDGED) === 0;
    if (outputSide && !bridgedOnly) return { hooks: ['prerouting', 'input', 'forward', 'postrouting'] };
    return undefined;
  }
}

export const physdevMatch: MatchModule = { name: 'physdev', create: () => new PhysdevMatch() };
