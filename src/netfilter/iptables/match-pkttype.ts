// The pkttype match (libxt_pkttype.c): `[!] --pkt-type unicast|broadcast|multicast|host|otherhost`, the
// link-layer class of the packet; iptables-nft writes it natively as `pkttype ...`.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type MatchModule,
  mustBeSpecified,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';

/** supported_types: names and PACKET_* numbers; iptables prints the first name of a number. */
const PACKET_TYPES: readonly (readonly [string, number])[] = [
  ['unicast', 0],
  ['broadcast', 1],
  ['multicast', 2],
  ['host', 0],
  ['otherhost', 3],
];

export class PkttypeMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'pkttype';
  readonly options: readonly OptionDef[] = [{ name: 'pkt-type', arg: true, invert: true }];
  type = 0;
  invert = false;
  given = false;

  parse(_option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0]!;
    const found = PACKET_TYPES.find(([name]) => name === text.toLowerCase());
    if (found === undefined) return param(`Bad packet type '${text}'`);
    this.type = found[1];
    this.invert = invert;
    this.given = true;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.given ? undefined : param(mustBeSpecified('pkttype', 'pkt-type'));
  }

  private typeName(): string {
    return PACKET_TYPES.find(([, value]) => value === this.type)?.[0] ?? String(this.type);
  }

  save(): string[] {
    return [...(this.invert ? ['!'] : []), '--pkt-type', this.typeName()];
  }

  print(): string {
    return ` PKTTYPE ${this.invert ? '!' : ''}= ${this.typeName()}`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'cmp',
          left: [{ selector: { kind: 'meta', key: 'pkttype' } }],
          op: this.invert ? 'ne' : 'eq',
          right: { kind: 'number', value: this.type },
        },
      ],
      xlate: undefined,
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const pkttypeMatch: MatchModule = { name: 'pkttype', create: () => new PkttypeMatch() };
