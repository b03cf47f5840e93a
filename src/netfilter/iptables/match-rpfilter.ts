// The rpfilter match (libxt_rpfilter.c): a reverse-path lookup of the source address (--loose, --validmark,
// --accept-local, --invert), valid in the raw and mangle tables' PREROUTING; nft lists its xlate (`fib saddr ...`).

import type { IptError } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, Usage, XtMatch } from './extension.ts';

const FLAGS = ['loose', 'validmark', 'accept-local', 'invert'] as const;
type Flag = (typeof FLAGS)[number];

export class RpfilterMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'rpfilter';
  readonly options: readonly OptionDef[] = FLAGS.map((name) => ({ name, arg: false, invert: false }));
  readonly flags = new Set<Flag>();

  parse(option: string): IptError | undefined {
    this.flags.add(option as Flag);
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  save(): string[] {
    return FLAGS.filter((flag) => this.flags.has(flag)).map((flag) => `--${flag}`);
  }

  print(): string {
    return ` rpfilter${FLAGS.filter((flag) => this.flags.has(flag))
      .map((flag) => ` ${flag}`)
      .join('')}`;
  }

  /** rpfilter_xlate: `fib saddr[ . mark][ . iif] oif [!= ]0`; --accept-local only translates inverted. */
  private xlate(): string {
    const invert = this.flags.has('invert');
    let text = '';
    if (this.flags.has('accept-local')) {
      if (!invert) return 'xt match rpfilter';
      text = 'fib saddr type != local ';
    }
    text += 'fib saddr';
    if (this.flags.has('validmark')) text += ' . mark';
    if (!this.flags.has('loose')) text += ' . iif';
    return `${text} oif ${invert ? '' : '!= '}0`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'match',
          name: 'rpfilter',
          options: {
            name: 'rpfilter',
            loose: this.flags.has('loose'),
            validmark: this.flags.has('validmark'),
            acceptLocal: this.flags.has('accept-local'),
            invert: this.flags.has('invert'),
          },
        },
      ],
      xlate: this.xlate(),
    };
  }

  /** rpfilter_check: the raw and mangle tables only; the match is for PREROUTING. */
  usage(): Usage | undefined {
    return { tables: ['raw', 'mangle'], hooks: ['prerouting'] };
  }
}

export const rpfilterMatch: MatchModule = { name: 'rpfilter', create: () => new RpfilterMatch() };
