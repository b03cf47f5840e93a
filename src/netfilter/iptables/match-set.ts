// The set match (libxt_set.c rev 4): `[!] --match-set NAME src|dst[,src|dst...]`, --return-nomatch,
// `! --update-counters`, `! --update-subcounters`, --packets-eq|lt|gt, --bytes-eq|lt|gt; the set must exist when the
// rule is made. iptables-nft passes it to the kernel as an xt match, which nft lists as `xt match set`.

import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, ParseContext, Usage, XtMatch } from './extension.ts';
import { parseDecimal } from './names.ts';

/** IPSET_DIM_MAX. */
const MAX_DIMENSIONS = 6;

export type SetDirection = 'src' | 'dst';

type CounterOp = 'eq' | 'lt' | 'gt';

/** `src,dst` as parse_dirs reads it, or undefined for a word that is not a direction list. */
export function parseDirections(text: string): SetDirection[] | undefined {
  const words = text.split(',');
  if (words.length > MAX_DIMENSIONS || words.some((word) => word !== 'src' && word !== 'dst'))
    return undefined;
  return words as SetDirection[];
}

export class SetMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'set';
  readonly options: readonly OptionDef[] = [
    { name: 'match-set', arg: 'two', invert: true },
    { name: 'return-nomatch', arg: false, invert: false },
    { name: 'update-counters', arg: false, invert: true },
    { name: 'update-subcounters', arg: false, invert: true },
    { name: 'packets-eq', arg: true, invert: true },
    { name: 'packets-lt', arg: true, invert: true },
    { name: 'packets-gt', arg: true, invert: true },
    { name: 'bytes-eq', arg: true, invert: true },
    { name: 'bytes-lt', arg: true, invert: true },
    { name: 'bytes-gt', arg: true, invert: true },
  ];
  setName = '';
  directions: SetDirection[] = [];
  invert = false;
  returnNomatch = false;
  updateCounters = true;
  updateSubcounters = true;
  packets: { op: CounterOp; value: number; invert: boolean } | undefined;
  bytes: { op: CounterOp; value: number; invert: boolean } | undefined;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    switch (option) {
      case 'match-set': {
        const directions = parseDirections(args[1] ?? '');
        if (directions === undefined)
          return param("You must spefify (the comma separated list of) 'src' or 'dst'.");
        this.setName = args[0]!;
        this.directions = directions;
        this.invert = invert;
        return undefined;
      }
      case 'return-nomatch':
        this.returnNomatch = true;
        return undefined;
      case 'update-counters':
        this.updateCounters = !invert;
        return undefined;
      case 'update-subcounters':
        this.updateSubcounters = !invert;
        return undefined;
      default: {
        const [what, op] = option.split('-') as ['packets' | 'bytes', CounterOp];
        // Only the -eq forms may be inverted (set_parse_counter's callers).
        if (invert && op !== 'eq') return param(`--${option} option cannot be inverted`);
        const value = parseDecimal(args[0] ?? '', Number.MAX_SAFE_INTEGER);
        if (value === undefined) return param(`Cannot parse ${args[0]} as a counter value`);
        this[what] = { op, value, invert };
        return undefined;
      }
    }
  }

  finish(ctx: ParseContext): IptError | undefined {
    if (this.setName === '') return param("You must specify `--match-set' with proper arguments");
    if (ctx.setExists !== undefined && !ctx.setExists(this.setName))
      return param(`Set ${this.setName} doesn't exist.\n`);
    return undefined;
  }

  private counterWords(what: 'packets' | 'bytes', save: boolean): string[] {
    const counter = this[what];
    if (counter === undefined) return [];
    const bang = counter.invert ? ['!'] : [];
    return [...bang, `${save ? '--' : ''}${what}-${counter.op}`, String(counter.value)];
  }

  private words(save: boolean): string[] {
    const dash = save ? '--' : '';
    const words = [
      ...(this.invert ? ['!'] : []),
      `${dash}match-set`,
      this.setName,
      this.directions.join(','),
    ];
    if (this.returnNomatch) words.push(`${dash}return-nomatch`);
    if (!this.updateCounters) words.push('!', `${dash}update-counters`);
    if (!this.updateSubcounters) words.push('!', `${dash}update-subcounters`);
    words.push(...this.counterWords('packets', save), ...this.counterWords('bytes', save));
    return words;
  }

  save(): string[] {
    return this.words(true);
  }

  /** set_printv4_mt: ` match-set NAME src,dst ...`. */
  print(): string {
    return ` ${this.words(false).join(' ')}`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'match',
          name: 'set',
          options: {
            name: 'set',
            setName: this.setName,
            directions: this.directions,
            invert: this.invert,
            returnNomatch: this.returnNomatch,
            updateCounters: this.updateCounters,
            updateSubcounters: this.updateSubcounters,
            packets: this.packets,
            bytes: this.bytes,
          },
        },
      ],
      xlate: 'xt match set',
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const setMatch: MatchModule = { name: 'set', create: () => new SetMatch() };
