// The statistic match (libxt_statistic.c): `--mode random --probability P` (kube-proxy's endpoint choice) and
// `--mode nth --every N [--packet P]`; the probability is kept as the kernel's 31-bit threshold.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotBeInverted,
  cannotCombine,
  type MatchModule,
  mustBeSpecified,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { parseDecimal } from './names.ts';

const SCALE = 0x8000_0000;

export class StatisticMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'statistic';
  readonly options: readonly OptionDef[] = [
    { name: 'mode', arg: true, invert: false },
    { name: 'probability', arg: true, invert: true },
    { name: 'every', arg: true, invert: true },
    { name: 'packet', arg: true, invert: false },
  ];
  mode: 'random' | 'nth' | undefined;
  /** lround(P * 2^31). */
  threshold: number | undefined;
  every: number | undefined;
  packet: number | undefined;
  invert = false;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0]!;
    if (invert && (option === 'mode' || option === 'packet'))
      return param(cannotBeInverted('statistic', option));
    switch (option) {
      case 'mode':
        if (text !== 'random' && text !== 'nth') return param(`Bad mode "${text}"`);
        this.mode = text;
        return undefined;
      case 'probability': {
        const value =
          /^[0-9]*\.?[0-9]*(e[-+]?[0-9]+)?$/i.test(text) && text !== '' ? Number(text) : Number.NaN;
        if (!(value >= 0 && value <= 1))
          return param('statistic: bad value for option "--probability", or out of range (0-1).\n');
        this.threshold = Math.round(value * SCALE);
        if (invert) this.invert = true;
        return undefined;
      }
      case 'every': {
        const value = parseDecimal(text);
        if (value === undefined || value === 0)
          return param('statistic: bad value for option "--every", or out of range (1-4294967295).\n');
        this.every = value;
        if (invert) this.invert = true;
        return undefined;
      }
      case 'packet': {
        const value = parseDecimal(text);
        if (value === undefined) return param(`cannot parse --packet \`${text}'`);
        this.packet = value;
        return undefined;
      }
    }
    return undefined;
  }

  /**
   * libxt_statistic's checks in the order iptables makes them: x6's exclusions and requirements between options
   * (--probability against --every/--packet, --every needing --packet), then statistic_check; --mode defaults to
   * random, but --probability alone asks for it.
   */
  finish(): IptError | undefined {
    if (this.threshold !== undefined && (this.every !== undefined || this.packet !== undefined))
      return param(cannotCombine('statistic', 'probability', this.every !== undefined ? 'every' : 'packet'));
    if (this.every !== undefined && this.packet === undefined)
      return param('statistic: option "--every" also requires "--packet".\n');
    if (this.threshold !== undefined && this.mode === undefined)
      return param(mustBeSpecified('statistic', 'mode'));
    const mode = this.mode ?? 'random';
    if (mode === 'random' && this.threshold === undefined)
      return param('--probability must be specified when using random mode');
    if (mode === 'nth' && this.every === undefined && this.packet === undefined)
      return param('--every and --packet must be specified when using nth mode');
    if (mode === 'nth' && (this.packet ?? 0) > (this.every ?? 0) - 1)
      return param('the --packet p must be 0 <= p <= n-1');
    this.mode = mode;
    return undefined;
  }

  private probabilityText(): string {
    return ((this.threshold ?? 0) / SCALE).toFixed(11);
  }

  save(): string[] {
    const inv = this.invert ? ['!'] : [];
    if (this.mode === 'random') return ['--mode', 'random', ...inv, '--probability', this.probabilityText()];
    return ['--mode', 'nth', ...inv, '--every', `${this.every}`, '--packet', `${this.packet ?? 0}`];
  }

  print(): string {
    const inv = this.invert ? ' !' : '';
    if (this.mode === 'random') return ` statistic mode random${inv} probability ${this.probabilityText()}`;
    return ` statistic mode nth${inv} every ${this.every}${this.packet ? ` packet ${this.packet}` : ''}`;
  }

  compile(): Compiled {
    if (this.mode === 'random') {
      const threshold = this.threshold ?? 0;
      return {
        exprs: [
          {
            kind: 'match',
            name: 'statistic',
            options: {
              name: 'statistic',
              mode: 'random',
              probability: threshold / SCALE,
              invert: this.invert,
            },
          },
        ],
        xlate: `meta random & 2147483647 ${this.invert ? '>=' : '<'} ${threshold}`,
      };
    }
    const every = this.every ?? 1;
    const packet = this.packet ?? 0;
    return {
      exprs: [
        {
          kind: 'match',
          name: 'statistic',
          options: { name: 'statistic', mode: 'nth', every, packet, invert: this.invert },
        },
      ],
      xlate: `numgen inc mod ${every} ${this.invert ? '!= ' : ''}${packet}`,
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const statisticMatch: MatchModule = { name: 'statistic', create: () => new StatisticMatch() };
