// The CT target with --notrack, and NOTRACK, its alias (libxt_CT.c rev 2): the packet skips connection
// tracking. Raw table only. `--zone`, `--zone-orig` and `--zone-reply` parse as iptables parses them, but a zone
// other than 0 is refused as not modelled (packetlab's conntrack has one zone). `--helper NAME` parses and saves,
// but packetlab has no conntrack helpers: the kernel's lookup fails (ENOENT, as on a kernel without the helper's
// module) unless --notrack makes it skip the lookup. Timeout and event options are not supported.

import { type IptError, notModelled, param } from './errors.ts';
import {
  type Compiled,
  type OptionDef,
  onlyOnce,
  type TargetModule,
  type Usage,
  type XtTarget,
} from './extension.ts';
import { parseUnsigned } from './names.ts';

const ZONE_OPTIONS = ['zone', 'zone-orig', 'zone-reply'];

export class CtTarget implements XtTarget {
  readonly kind = 'target';
  readonly listName = 'CT';
  readonly options: readonly OptionDef[];
  notrack: boolean;
  /** The zone id and whether it is taken from the mark (XT_CT_ZONE_MARK); 0 is the default zone. */
  zone = 0;
  zoneFromMark = false;
  /** `--helper NAME`: the helper to attach (xt_ct_set_helper), which packetlab cannot find. */
  helper: string | undefined;
  private readonly given = new Set<string>();

  constructor(readonly name: 'CT' | 'NOTRACK') {
    this.notrack = name === 'NOTRACK';
    this.options =
      name === 'CT'
        ? [
            { name: 'notrack', arg: false, invert: false },
            { name: 'helper', arg: true, invert: false },
            ...ZONE_OPTIONS.map((zone) => ({ name: zone, arg: true, invert: false })),
          ]
        : [];
  }

  parse(option: string, args: readonly string[]): IptError | undefined {
    if (this.given.has(option)) return param(onlyOnce('CT', option));
    this.given.add(option);
    if (option === 'notrack') {
      this.notrack = true;
      return undefined;
    }
    if (option === 'helper') {
      this.helper = args[0]!;
      return undefined;
    }
    // ct_parse_zone_id: `mark` or a number up to 65535 (strtoul base 0).
    const text = args[0]!;
    if (text === 'mark') {
      this.zoneFromMark = true;
      this.zone = 0;
      return undefined;
    }
    const zone = parseUnsigned(text, 0xffff);
    if (zone === undefined) return param(`Cannot parse ${text} as a zone ID`);
    this.zoneFromMark = false;
    this.zone = zone;
    return undefined;
  }

  finish(): IptError | undefined {
    // Conntrack zones are not modelled: only the default zone is.
    if (this.zone !== 0 || this.zoneFromMark) return notModelled('-j CT --zone');
    return undefined;
  }

  save(): string[] {
    if (this.name !== 'CT') return [];
    return [
      ...(this.notrack ? ['--notrack'] : []),
      ...(this.helper === undefined ? [] : ['--helper', this.helper]),
    ];
  }

  print(): string {
    if (this.name === 'NOTRACK') return ' NOTRACK';
    return `${this.notrack ? ' CT notrack' : ' CT'}${this.helper === undefined ? '' : ` helper ${this.helper}`}`;
  }

  compile(): Compiled {
    // A CT target without options does nothing packetlab models; an empty comment keeps its place for nft.
    if (!this.notrack)
      return {
        exprs: [{ kind: 'match', name: 'comment', options: { name: 'comment', comment: '' } }],
        xlate: 'xt target CT',
      };
    return { exprs: [{ kind: 'notrack' }], xlate: 'notrack' };
  }

  usage(): Usage | undefined {
    // xt_ct_tg_check: without --notrack the helper is looked up (nf_conntrack_helper_try_module_get): ENOENT.
    if (this.helper !== undefined && !this.notrack) return { never: true, errno: 'ENOENT' };
    return { tables: ['raw'] };
  }
}

export const ctTarget: TargetModule = { name: 'CT', create: () => new CtTarget('CT') };
export const notrackTarget: TargetModule = { name: 'NOTRACK', create: () => new CtTarget('NOTRACK') };
