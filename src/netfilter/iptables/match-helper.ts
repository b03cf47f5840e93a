// The helper match (libxt_helper.c): `[!] --helper NAME`, the conntrack helper of the connection (or its
// master's); iptables-nft lists it as `ct helper "NAME"`. packetlab's conntrack assigns no helpers.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type MatchModule,
  mustBeSpecified,
  type OptionDef,
  saveString,
  type Usage,
  type XtMatch,
} from './extension.ts';

/** xt_helper_info's name[30]: 29 characters and a NUL. */
const MAX_NAME = 29;

export class HelperMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'helper';
  readonly options: readonly OptionDef[] = [{ name: 'helper', arg: true, invert: true }];
  helper: string | undefined;
  invert = false;

  parse(_option: string, args: readonly string[], invert: boolean): IptError | undefined {
    this.helper = args[0]!.slice(0, MAX_NAME);
    this.invert = invert;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.helper === undefined ? param(mustBeSpecified('helper', 'helper')) : undefined;
  }

  save(): string[] {
    return [...(this.invert ? ['!'] : []), '--helper', saveString(this.helper ?? '')];
  }

  print(): string {
    return ` helper match ${this.invert ? '! ' : ''}"${this.helper}"`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'match',
          name: 'helper',
          options: { name: 'helper', helper: this.helper ?? '', invert: this.invert },
        },
      ],
      xlate: `ct helper ${this.invert ? '!= ' : ''}"${this.helper}"`,
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const helperMatch: MatchModule = { name: 'helper', create: () => new HelperMatch() };
