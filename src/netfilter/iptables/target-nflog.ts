// The NFLOG target (libxt_NFLOG.c): --nflog-group, --nflog-prefix, --nflog-size, --nflog-threshold (and the
// ignored --nflog-range); iptables-nft writes it natively as nft's `log group N`. With no nfnetlink_log
// listener in packetlab the packet goes on, as in the kernel when nobody reads the group.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type OptionDef,
  onlyOnce,
  saveString,
  type TargetModule,
  type Usage,
  type XtTarget,
} from './extension.ts';
import { parseDecimal } from './names.ts';

export class NflogTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'NFLOG';
  readonly listName = 'NFLOG';
  readonly options: readonly OptionDef[] = [
    { name: 'nflog-group', arg: true, invert: false },
    { name: 'nflog-prefix', arg: true, invert: false },
    { name: 'nflog-range', arg: true, invert: false },
    { name: 'nflog-size', arg: true, invert: false },
    { name: 'nflog-threshold', arg: true, invert: false },
  ];
  group = 0;
  prefix: string | undefined;
  size: number | undefined;
  threshold = 1;
  private range = false;
  private readonly given = new Set<string>();

  parse(option: string, args: readonly string[]): IptError | undefined {
    const text = args[0] ?? '';
    if (this.given.has(option)) return param(onlyOnce('NFLOG', option));
    this.given.add(option);
    if (option === 'nflog-prefix') {
      this.prefix = text;
      return undefined;
    }
    const max = option === 'nflog-group' || option === 'nflog-threshold' ? 0xffff : 0xffff_ffff;
    const value = parseDecimal(text, max);
    if (value === undefined)
      return param(`NFLOG: bad value for option "--${option}", or out of range (0-${max}).\n`);
    if (option === 'nflog-group') this.group = value;
    else if (option === 'nflog-size') this.size = value;
    else if (option === 'nflog-range') this.range = true;
    // The kernel's log expression keeps a threshold of 0 as the default 1.
    else this.threshold = value === 0 ? 1 : value;
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  warnings(): string[] {
    return this.range
      ? ['warn: --nflog-range has never worked and is no longer supported, please use --nflog-size instead']
      : [];
  }

  private words(prefix: string): string[] {
    const words: string[] = [];
    if (this.prefix !== undefined) words.push(`${prefix}nflog-prefix`, saveString(this.prefix));
    if (this.group !== 0) words.push(`${prefix}nflog-group`, `${this.group}`);
    if (this.size !== undefined) words.push(`${prefix}nflog-size`, `${this.size}`);
    if (this.threshold !== 1) words.push(`${prefix}nflog-threshold`, `${this.threshold}`);
    return words;
  }

  save(): string[] {
    return this.words('--');
  }

  print(): string {
    return this.words('')
      .map((word) => ` ${word}`)
      .join('');
  }

  compile(): Compiled {
    let xlate = 'log';
    if (this.prefix !== undefined) xlate += ` prefix "${this.prefix}"`;
    xlate += ` group ${this.group}`;
    if (this.size !== undefined) xlate += ` snaplen ${this.size}`;
    if (this.threshold !== 1) xlate += ` queue-threshold ${this.threshold}`;
    return { exprs: [{ kind: 'xt-target', options: { name: 'NFLOG', group: this.group } }], xlate };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const nflogTarget: TargetModule = { name: 'NFLOG', create: () => new NflogTarget() };
