// The SET target (libxt_SET.c rev 3): `--add-set NAME src|dst[,...]` and/or `--del-set NAME ...`, with --exist
// (refresh an existing member's timeout) and --timeout; it changes the set and lets the packet go on
// (XT_CONTINUE). nft lists it as `xt target SET`. No --map-set.

import { type IptError, param } from './errors.ts';
import type { Compiled, OptionDef, ParseContext, TargetModule, Usage, XtTarget } from './extension.ts';
import { parseDirections, type SetDirection } from './match-set.ts';
import { parseDecimal } from './names.ts';

interface SetReference {
  readonly setName: string;
  readonly directions: SetDirection[];
}

export class SetTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'SET';
  readonly listName = 'SET';
  readonly options: readonly OptionDef[] = [
    { name: 'add-set', arg: 'two', invert: false },
    { name: 'del-set', arg: 'two', invert: false },
    { name: 'exist', arg: false, invert: false },
    { name: 'timeout', arg: true, invert: false },
  ];
  add: SetReference | undefined;
  del: SetReference | undefined;
  exist = false;
  timeout: number | undefined;

  parse(option: string, args: readonly string[]): IptError | undefined {
    switch (option) {
      case 'add-set':
      case 'del-set': {
        const which = option === 'add-set' ? 'add' : 'del';
        if (this[which] !== undefined) return param(`--${option} can be specified only once`);
        const directions = parseDirections(args[1] ?? '');
        if (directions === undefined)
          return param("You must spefify (the comma separated list of) 'src' or 'dst'.");
        this[which] = { setName: args[0]!, directions };
        return undefined;
      }
      case 'exist':
        this.exist = true;
        return undefined;
      default: {
        const value = parseDecimal(args[0] ?? '', 4_294_967_294);
        if (value === undefined)
          return param('Invalid value for option --timeout or out of range 0-4294967294');
        this.timeout = value;
        return undefined;
      }
    }
  }

  finish(ctx: ParseContext): IptError | undefined {
    if (this.add === undefined && this.del === undefined)
      return param("You must specify either `--add-set' or `--del-set' or `--map-set'");
    if ((this.exist || this.timeout !== undefined) && this.add === undefined)
      return param(`Flag \`--${this.exist ? 'exist' : 'timeout'}' can be used with \`--add-set' only`);
    for (const reference of [this.add, this.del])
      if (reference !== undefined && ctx.setExists !== undefined && !ctx.setExists(reference.setName))
        return param(`Set ${reference.setName} doesn't exist.\n`);
    return undefined;
  }

  private words(save: boolean): string[] {
    const dash = save ? '--' : '';
    const words: string[] = [];
    if (this.add !== undefined) words.push(`${dash}add-set`, this.add.setName, this.add.directions.join(','));
    if (this.del !== undefined) words.push(`${dash}del-set`, this.del.setName, this.del.directions.join(','));
    if (this.exist) words.push(`${dash}exist`);
    if (this.timeout !== undefined) words.push(`${dash}timeout`, String(this.timeout));
    return words;
  }

  save(): string[] {
    return this.words(true);
  }

  print(): string {
    return ` ${this.words(false).join(' ')}`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'ipset-update',
          add: this.add,
          del: this.del,
          exist: this.exist,
          timeout: this.timeout,
        },
      ],
      xlate: 'xt target SET',
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const setTarget: TargetModule = { name: 'SET', create: () => new SetTarget() };
