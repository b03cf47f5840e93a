// The mac match (libxt_mac.c): `[!] --mac-source XX:XX:XX:XX:XX:XX`, the Ethernet source of a received frame;
// iptables-nft writes it natively as `ether saddr`. The kernel allows it only in PREROUTING, INPUT and FORWARD.

import { formatMac } from '../../wire/address.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type MatchModule,
  mustBeSpecified,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';

export class MacMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'mac';
  readonly options: readonly OptionDef[] = [{ name: 'mac-source', arg: true, invert: true }];
  mac = 0;
  invert = false;
  given = false;

  parse(_option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0]!;
    // xtables_parse_mac: six hexadecimal bytes of one or two digits.
    const bytes = text.split(':');
    if (bytes.length !== 6 || !bytes.every((byte) => /^[0-9a-fA-F]{1,2}$/.test(byte)))
      return param('Invalid MAC address specified.');
    this.mac = bytes.reduce((mac, byte) => mac * 256 + Number.parseInt(byte, 16), 0);
    this.invert = invert;
    this.given = true;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.given ? undefined : param(mustBeSpecified('mac', 'mac-source'));
  }

  save(): string[] {
    return [...(this.invert ? ['!'] : []), '--mac-source', formatMac(this.mac)];
  }

  print(): string {
    return ` MAC ${this.invert ? '! ' : ''}${formatMac(this.mac)}`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'cmp',
          left: [{ selector: { kind: 'payload', field: 'ether saddr' } }],
          op: this.invert ? 'ne' : 'eq',
          right: { kind: 'number', value: this.mac },
        },
      ],
      xlate: undefined,
    };
  }

  /** mac_mt's hooks: PREROUTING, INPUT and FORWARD (there is no source MAC on the way out). */
  usage(): Usage | undefined {
    return { hooks: ['prerouting', 'input', 'forward'] };
  }
}

export const macMatch: MatchModule = { name: 'mac', create: () => new MacMatch() };
