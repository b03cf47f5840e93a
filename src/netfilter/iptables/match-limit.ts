// The limit match (libxt_limit.c): `--limit RATE[/second|minute|hour|day]` and `--limit-burst N`, a token bucket.
// iptables-nft writes it natively as nft's limit (rate per unit, burst in packets), which is what evaluates here.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotBeInverted,
  type MatchModule,
  type OptionDef,
  onlyOnce,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { parseDecimal } from './names.ts';

/** XT_LIMIT_SCALE: `avg` is the time between packets in 1/10000 s. */
export const LIMIT_SCALE = 10000;
const UNITS: readonly (readonly [string, number])[] = [
  ['second', 1],
  ['minute', 60],
  ['hour', 3600],
  ['day', 86400],
];

/**
 * parse_rate: `N[/UNIT]` where UNIT is any prefix of second, minute, hour or day; the average interval in
 * XT_LIMIT_SCALE units, 0 for a bad rate, or 'too fast' when it rounds to nothing.
 */
export function parseRate(text: string, scale = LIMIT_SCALE): number | 'bad' | 'too fast' {
  const slash = text.indexOf('/');
  let mult = 1;
  if (slash >= 0) {
    const unit = text.slice(slash + 1).toLowerCase();
    const found = unit === '' ? undefined : UNITS.find(([name]) => name.startsWith(unit));
    if (found === undefined) return 'bad';
    mult = found[1];
  }
  // atoi: leading digits.
  const digits = /^\s*\+?([0-9]+)/.exec(text);
  const rate = digits === null ? 0 : Number(digits[1]);
  if (!rate) return 'bad';
  const avg = Math.floor((scale * mult) / rate);
  return avg === 0 ? 'too fast' : avg;
}

const RATES: readonly (readonly [string, number, string])[] = [
  ['day', 24 * 60 * 60, 'day'],
  ['hour', 60 * 60, 'hour'],
  ['min', 60, 'minute'],
  ['sec', 1, 'second'],
];

/** print_rate / add_nft_limit: the largest unit that states `avg` as a whole number of packets. */
export function rateUnit(
  avg: number,
  scale = LIMIT_SCALE,
): { rate: number; unit: number; label: string; nft: string } {
  let i = 1;
  for (; i < RATES.length; i++) {
    const mult = RATES[i]![1] * scale;
    if (avg > mult || Math.floor(mult / avg) < mult % avg) break;
  }
  const [label, seconds, nft] = RATES[i - 1]!;
  return { rate: Math.floor((seconds * scale) / avg), unit: seconds, label, nft };
}

export function rateText(avg: number, scale = LIMIT_SCALE): string {
  const { rate, label } = rateUnit(avg, scale);
  return `${rate}/${label}`;
}

export class LimitMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'limit';
  readonly options: readonly OptionDef[] = [
    { name: 'limit', arg: true, invert: true },
    { name: 'limit-burst', arg: true, invert: true },
  ];
  /** The default: 3/hour. */
  avg = Math.floor((LIMIT_SCALE * 3600) / 3);
  burst = 5;
  private readonly given = new Set<string>();

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    if (invert) return param(cannotBeInverted('limit', option));
    if (this.given.has(option)) return param(onlyOnce('limit', option));
    this.given.add(option);
    const text = args[0]!;
    if (option === 'limit') {
      const avg = parseRate(text);
      if (avg === 'bad') return param(`bad rate "${text}"'`);
      if (avg === 'too fast') return param(`Rate too fast "${text}"`);
      this.avg = avg;
      return undefined;
    }
    const burst = parseDecimal(text, 10000);
    if (burst === undefined)
      return param('limit: bad value for option "--limit-burst", or out of range (0-10000).\n');
    // nft_limit_init: a burst of 0 is the default of 5.
    this.burst = burst === 0 ? 5 : burst;
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  save(): string[] {
    const words = ['--limit', rateText(this.avg)];
    if (this.burst !== 5) words.push('--limit-burst', `${this.burst}`);
    return words;
  }

  print(): string {
    return ` limit: avg ${rateText(this.avg)} burst ${this.burst}`;
  }

  compile(): Compiled {
    const { rate, unit, nft } = rateUnit(this.avg);
    const burst = this.burst === 5 ? '' : ` burst ${this.burst} packets`;
    return {
      exprs: [
        {
          kind: 'limit',
          mode: 'packets',
          rate,
          unit,
          burst: this.burst,
          invert: false,
          bucket: { tokens: 0, last: -1 },
        },
      ],
      xlate: `limit rate ${rate}/${nft}${burst}`,
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const limitMatch: MatchModule = { name: 'limit', create: () => new LimitMatch() };
