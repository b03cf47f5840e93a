// The hashlimit match (libxt_hashlimit.c rev 3): a token bucket per key (--hashlimit-mode srcip,dstip,srcport,
// dstport with --hashlimit-srcmask/-dstmask) in a table named --hashlimit-name, --hashlimit-upto or -above a rate.
// nft lists it through its xlate as a meter when it has a mode. No byte rates (`kb/s`), no --hashlimit-rate-match.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotCombine,
  type MatchModule,
  mustBeSpecified,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { parseRate, rateText, rateUnit } from './match-limit.ts';
import { parseDecimal } from './names.ts';

/** XT_HASHLIMIT_SCALE_v2. */
const SCALE = 1_000_000;
const GC_INTERVAL = 1000;
const BURST_MAX = 1_000_000;

/** XT_HASHLIMIT_HASH_* in the order print_mode names them. */
const MODES: readonly (readonly [string, number])[] = [
  ['srcip', 4],
  ['srcport', 8],
  ['dstip', 1],
  ['dstport', 2],
];
/** hashlimit_modes4_xlate by bit. */
const XLATE_MODES: Readonly<Record<number, string>> = {
  1: 'ip daddr',
  2: 'tcp dport',
  4: 'ip saddr',
  8: 'tcp sport',
};

function subnet(len: number): string {
  const mask = len === 0 ? 0 : (0xffff_ffff << (32 - len)) >>> 0;
  return [24, 16, 8, 0].map((shift) => (mask >>> shift) & 0xff).join('.');
}

export class HashlimitMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'hashlimit';
  readonly options: readonly OptionDef[] = [
    { name: 'hashlimit-upto', arg: true, invert: true },
    { name: 'hashlimit-above', arg: true, invert: true },
    { name: 'hashlimit', arg: true, invert: true },
    { name: 'hashlimit-srcmask', arg: true, invert: false },
    { name: 'hashlimit-dstmask', arg: true, invert: false },
    { name: 'hashlimit-burst', arg: true, invert: false },
    { name: 'hashlimit-htable-size', arg: true, invert: false },
    { name: 'hashlimit-htable-max', arg: true, invert: false },
    { name: 'hashlimit-htable-gcinterval', arg: true, invert: false },
    { name: 'hashlimit-htable-expire', arg: true, invert: false },
    { name: 'hashlimit-mode', arg: true, invert: false },
    { name: 'hashlimit-name', arg: true, invert: false },
  ];
  avg = 0;
  burst = 5;
  above = false;
  mode = 0;
  srcmask = 32;
  dstmask = 32;
  size = 0;
  max = 0;
  gcInterval = GC_INTERVAL;
  expire: number | undefined;
  /** The rate's unit in seconds (udata->mult), for the default expiry. */
  private unit = 1;
  table: string | undefined;
  private readonly given = new Set<string>();

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0]!;
    const name = option === 'hashlimit' ? 'hashlimit-upto' : option;
    this.given.add(name);
    switch (name) {
      case 'hashlimit-upto':
      case 'hashlimit-above': {
        this.above = (name === 'hashlimit-above') !== invert;
        const avg = parseRate(text, SCALE);
        if (avg === 'too fast') return param(`Rate too fast "${text}"`);
        if (avg === 'bad') return param(`hashlimit: Bad value for "--${name}" option: "${text}"`);
        this.avg = avg;
        const slash = text.indexOf('/');
        const unit = slash < 0 ? 's' : text[slash + 1]!.toLowerCase();
        this.unit = unit === 'm' ? 60 : unit === 'h' ? 3600 : unit === 'd' ? 86400 : 1;
        return undefined;
      }
      case 'hashlimit-mode': {
        let mode = 0;
        for (const token of text.split(/[,|]/)) {
          if (token === '') continue;
          const found = MODES.find(([label]) => label === token);
          if (found === undefined)
            return param(`hashlimit: Bad value for "--hashlimit-mode" option: "${text}"`);
          mode |= found[1];
        }
        this.mode |= mode;
        return undefined;
      }
      case 'hashlimit-srcmask':
      case 'hashlimit-dstmask': {
        const len = parseDecimal(text, 128);
        if (len === undefined)
          return param(`hashlimit: bad value for option "--${name}", or out of range (0-128).\n`);
        if (name === 'hashlimit-srcmask') this.srcmask = len;
        else this.dstmask = len;
        return undefined;
      }
      case 'hashlimit-burst': {
        const burst = parseDecimal(text, Number.MAX_SAFE_INTEGER);
        if (burst === undefined || burst < 1 || burst > BURST_MAX)
          return param(`bad value for option "--hashlimit-burst", or out of range (1-${BURST_MAX}).`);
        this.burst = burst;
        return undefined;
      }
      case 'hashlimit-name':
        this.table = text;
        return undefined;
    }
    const value = parseDecimal(text);
    if (value === undefined)
      return param(`hashlimit: bad value for option "--${name}", or out of range (0-4294967295).\n`);
    if (name === 'hashlimit-htable-size') this.size = value;
    else if (name === 'hashlimit-htable-max') this.max = value;
    else if (name === 'hashlimit-htable-gcinterval') this.gcInterval = value;
    else this.expire = value;
    return undefined;
  }

  /** x6's checks (the exclusion, --hashlimit-name required), then hashlimit_mt_check. */
  finish(): IptError | undefined {
    if (this.given.has('hashlimit-upto') && this.given.has('hashlimit-above'))
      return param(cannotCombine('hashlimit', 'hashlimit-upto', 'hashlimit-above'));
    if (this.table === undefined) return param(mustBeSpecified('hashlimit', 'hashlimit-name'));
    if (!this.given.has('hashlimit-upto') && !this.given.has('hashlimit-above'))
      return param('You have to specify --hashlimit');
    this.expire ??= this.unit * 1000;
    return undefined;
  }

  private modeText(sep: string): string {
    return MODES.filter(([, bit]) => this.mode & bit)
      .map(([label]) => label)
      .join(sep);
  }

  save(): string[] {
    const words = [this.above ? '--hashlimit-above' : '--hashlimit-upto', rateText(this.avg, SCALE)];
    words.push('--hashlimit-burst', `${this.burst}`);
    if (this.mode !== 0) words.push('--hashlimit-mode', this.modeText(','));
    words.push('--hashlimit-name', this.table ?? '');
    if (this.size !== 0) words.push('--hashlimit-htable-size', `${this.size}`);
    if (this.max !== 0) words.push('--hashlimit-htable-max', `${this.max}`);
    if (this.gcInterval !== GC_INTERVAL) words.push('--hashlimit-htable-gcinterval', `${this.gcInterval}`);
    if (this.expire !== undefined && this.expire !== rateUnit(this.avg, SCALE).unit * 1000)
      words.push('--hashlimit-htable-expire', `${this.expire}`);
    if (this.srcmask !== 32) words.push('--hashlimit-srcmask', `${this.srcmask}`);
    if (this.dstmask !== 32) words.push('--hashlimit-dstmask', `${this.dstmask}`);
    return words;
  }

  print(): string {
    let text = ` limit: ${this.above ? 'above' : 'up to'} ${rateText(this.avg, SCALE)} burst ${this.burst}`;
    if (this.mode !== 0) text += ` mode ${this.modeText('-')}`;
    if (this.size !== 0) text += ` htable-size ${this.size}`;
    if (this.max !== 0) text += ` htable-max ${this.max}`;
    if (this.gcInterval !== GC_INTERVAL) text += ` htable-gcinterval ${this.gcInterval}`;
    if (this.expire !== undefined && this.expire !== rateUnit(this.avg, SCALE).unit * 1000)
      text += ` htable-expire ${this.expire}`;
    if (this.srcmask !== 32) text += ` srcmask ${this.srcmask}`;
    if (this.dstmask !== 32) text += ` dstmask ${this.dstmask}`;
    return text;
  }

  /** hashlimit_mt_xlate: a meter keyed by the mode's fields; nothing (xt match) without a mode. */
  private xlate(): string {
    if (this.mode === 0) return 'xt match hashlimit';
    const keys: string[] = [];
    for (const bit of [1, 2, 4, 8]) {
      if (!(this.mode & bit)) continue;
      let key = XLATE_MODES[bit]!;
      if (bit === 1 && this.dstmask !== 32) key += ` and ${subnet(Math.min(this.dstmask, 32))}`;
      if (bit === 4 && this.srcmask !== 32) key += ` and ${subnet(Math.min(this.srcmask, 32))}`;
      keys.push(key);
    }
    const expire = this.expire ?? 1000;
    const timeout = expire !== 1000 ? ` timeout ${Math.floor(expire / 1000)}s` : '';
    const { rate, nft } = rateUnit(this.avg, SCALE);
    const burst = this.burst !== 5 ? ` burst ${this.burst} packets` : '';
    return `meter ${this.table} { ${keys.join(' . ')}${timeout} limit rate${this.above ? ' over' : ''} ${rate}/${nft}${burst} }`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'match',
          name: 'hashlimit',
          options: {
            name: 'hashlimit',
            table: this.table ?? '',
            avg: this.avg,
            burst: this.burst,
            above: this.above,
            srcip: (this.mode & 4) !== 0,
            dstip: (this.mode & 1) !== 0,
            srcport: (this.mode & 8) !== 0,
            dstport: (this.mode & 2) !== 0,
            srcmask: Math.min(this.srcmask, 32),
            dstmask: Math.min(this.dstmask, 32),
            expire: this.expire ?? 1000,
          },
        },
      ],
      xlate: this.xlate(),
    };
  }

  /** hashlimit_mt_check_common: IPv4 masks above 32 are EINVAL. */
  usage(): Usage | undefined {
    return this.srcmask > 32 || this.dstmask > 32 ? { never: true } : undefined;
  }
}

export const hashlimitMatch: MatchModule = { name: 'hashlimit', create: () => new HashlimitMatch() };
