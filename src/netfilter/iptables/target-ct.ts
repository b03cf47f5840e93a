// The CT target with --notrack, and NOTRACK, its alias (libxt_CT.c rev 2): the packet skips connection
// tracking. Raw table only; CT's zone, helper, timeout and event options are not supported.

import type { IptError } from './errors.ts';
import type { Compiled, OptionDef, TargetModule, Usage, XtTarget } from './extension.ts';

export class CtTarget implements XtTarget {
  readonly kind = 'target';
  readonly listName = 'CT';
  readonly options: readonly OptionDef[];
  notrack: boolean;

  constructor(readonly name: 'CT' | 'NOTRACK') {
    this.notrack = name === 'NOTRACK';
    this.options = name === 'CT' ? [{ name: 'notrack', arg: false, invert: false }] : [];
  }

  parse(): IptError | undefined {
    this.notrack = true;
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  save(): string[] {
    return this.name === 'CT' && this.notrack ? ['--notrack'] : [];
  }

  print(): string {
    if (this.name === 'NOTRACK') return ' NOTRACK';
    return this.notrack ? ' CT notrack' : '';
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
    return { tables: ['raw'] };
  }
}

export const ctTarget: TargetModule = { name: 'CT', create: () => new CtTarget('CT') };
export const notrackTarget: TargetModule = { name: 'NOTRACK', create: () => new CtTarget('NOTRACK') };
