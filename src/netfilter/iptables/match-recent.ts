// The recent match (libxt_recent.c rev 1): named lists of addresses with --set/--rcheck/--update/--remove,
// --seconds, --reap, --hitcount, --rttl, --name, --rsource/--rdest, --mask; nft has no translation for it.

import { formatIpv4, parseIpv4 } from '../../wire/address.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotCombine,
  type MatchModule,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { parseDecimal } from './names.ts';

type Command = 'set' | 'rcheck' | 'update' | 'remove';

const COMMANDS: readonly Command[] = ['set', 'rcheck', 'update', 'remove'];
const PRINT: Record<Command, string> = { set: 'SET', rcheck: 'CHECK', update: 'UPDATE', remove: 'REMOVE' };

export class RecentMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'recent';
  readonly options: readonly OptionDef[] = [
    { name: 'set', arg: false, invert: true },
    { name: 'rcheck', arg: false, invert: true },
    { name: 'update', arg: false, invert: true },
    { name: 'remove', arg: false, invert: true },
    { name: 'seconds', arg: true, invert: false },
    { name: 'reap', arg: false, invert: false },
    { name: 'hitcount', arg: true, invert: false },
    { name: 'rttl', arg: false, invert: false },
    { name: 'name', arg: true, invert: false },
    { name: 'rsource', arg: false, invert: false },
    { name: 'rdest', arg: false, invert: false },
    { name: 'mask', arg: true, invert: false },
  ];
  command: Command | undefined;
  invert = false;
  seconds: number | undefined;
  reap = false;
  hitcount: number | undefined;
  rttl = false;
  listName = 'DEFAULT';
  side: 'source' | 'dest' = 'source';
  mask = 0xffff_ffff;
  /** Every command given: x6 refuses two of them when the options are checked, in definition order. */
  private readonly given = new Set<Command>();

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    if ((COMMANDS as readonly string[]).includes(option)) {
      this.given.add(option as Command);
      this.command ??= option as Command;
      this.invert = invert;
      return undefined;
    }
    const text = args[0] ?? '';
    switch (option) {
      case 'seconds':
      case 'hitcount': {
        const value = parseDecimal(text);
        if (value === undefined)
          return param(`recent: bad value for option "--${option}", or out of range.\n`);
        if (option === 'seconds') this.seconds = value;
        else this.hitcount = value;
        return undefined;
      }
      case 'reap':
        this.reap = true;
        return undefined;
      case 'rttl':
        this.rttl = true;
        return undefined;
      case 'name':
        this.listName = text;
        return undefined;
      case 'rsource':
        this.side = 'source';
        return undefined;
      case 'rdest':
        this.side = 'dest';
        return undefined;
      case 'mask': {
        const mask = parseIpv4(text);
        if (mask === undefined) return param(`recent: bad value for option "--mask".\n`);
        this.mask = mask >>> 0;
        return undefined;
      }
    }
    return undefined;
  }

  /** x6's option checks in definition order (set, rcheck, update, remove ... rttl), then recent_check. */
  finish(): IptError | undefined {
    for (const command of COMMANDS) {
      if (!this.given.has(command)) continue;
      const other = COMMANDS.find((candidate) => candidate !== command && this.given.has(candidate));
      if (other !== undefined) return param(cannotCombine('recent', command, other));
    }
    if (this.reap && this.seconds === undefined)
      return param('recent: option "--reap" also requires "--seconds".\n');
    if (this.rttl && (this.command === 'set' || this.command === 'remove'))
      return param(cannotCombine('recent', 'rttl', this.command));
    if (this.command === undefined)
      return param("recent: you must specify one of `--set', `--rcheck' `--update' or `--remove'");
    return undefined;
  }

  save(): string[] {
    const words = [...(this.invert ? ['!'] : []), `--${this.command}`];
    if (this.seconds !== undefined) words.push('--seconds', `${this.seconds}`);
    if (this.reap) words.push('--reap');
    if (this.hitcount !== undefined) words.push('--hitcount', `${this.hitcount}`);
    if (this.rttl) words.push('--rttl');
    words.push('--name', this.listName, '--mask', formatIpv4(this.mask));
    words.push(this.side === 'source' ? '--rsource' : '--rdest');
    return words;
  }

  print(): string {
    let text = `${this.invert ? ' !' : ''} recent: ${PRINT[this.command ?? 'set']}`;
    if (this.seconds !== undefined) text += ` seconds: ${this.seconds}`;
    if (this.reap) text += ' reap';
    if (this.hitcount !== undefined) text += ` hit_count: ${this.hitcount}`;
    if (this.rttl) text += ' TTL-Match';
    text += ` name: ${this.listName} side: ${this.side} mask: ${formatIpv4(this.mask)}`;
    return text;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'match',
          name: 'recent',
          options: {
            name: 'recent',
            command: this.command ?? 'set',
            listName: this.listName,
            side: this.side,
            seconds: this.seconds,
            reap: this.reap,
            mask: this.mask,
            ...(this.hitcount === undefined ? {} : { hitcount: this.hitcount }),
            ...(this.rttl ? { rttl: true } : {}),
            ...(this.invert ? { invert: true } : {}),
          },
        },
      ],
      xlate: 'xt match recent',
    };
  }

  /** recent_mt_check: --set and --remove take no --seconds, --hitcount, --rttl or --reap (EINVAL). */
  usage(): Usage | undefined {
    const modifies = this.command === 'set' || this.command === 'remove';
    const qualified = this.seconds !== undefined || this.hitcount !== undefined || this.reap || this.rttl;
    return modifies && qualified ? { never: true } : undefined;
  }
}

export const recentMatch: MatchModule = { name: 'recent', create: () => new RecentMatch() };
