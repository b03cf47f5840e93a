// The dscp match (libxt_dscp.c): `[!] --dscp 0-63` or `[!] --dscp-class NAME` (DiffServ class names); iptables-nft
// writes it natively as `ip dscp 0x0a`.

import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, Usage, XtMatch } from './extension.ts';
import { parseUnsigned } from './names.ts';

/** dscp_helper.c: the class names and their code points. */
export const DSCP_CLASSES: Readonly<Record<string, number>> = {
  CS0: 0x00,
  CS1: 0x08,
  CS2: 0x10,
  CS3: 0x18,
  CS4: 0x20,
  CS5: 0x28,
  CS6: 0x30,
  CS7: 0x38,
  BE: 0x00,
  AF11: 0x0a,
  AF12: 0x0c,
  AF13: 0x0e,
  AF21: 0x12,
  AF22: 0x14,
  AF23: 0x16,
  AF31: 0x1a,
  AF32: 0x1c,
  AF33: 0x1e,
  AF41: 0x22,
  AF42: 0x24,
  AF43: 0x26,
  EF: 0x2e,
};

export class DscpMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'dscp';
  readonly options: readonly OptionDef[] = [
    { name: 'dscp', arg: true, invert: true },
    { name: 'dscp-class', arg: true, invert: true },
  ];
  dscp = 0;
  invert = false;
  given = false;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0]!;
    if (option === 'dscp') {
      const value = parseUnsigned(text, 63);
      if (value === undefined) return param('dscp: bad value for option "--dscp", or out of range (0-63).\n');
      this.dscp = value;
    } else {
      const value = DSCP_CLASSES[text.toUpperCase()];
      if (value === undefined) return param(`Invalid DSCP value \`${text}'`);
      this.dscp = value;
    }
    this.invert = invert;
    this.given = true;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.given ? undefined : param('DSCP match: Parameter --dscp is required');
  }

  private hex(): string {
    return `0x${this.dscp.toString(16).padStart(2, '0')}`;
  }

  save(): string[] {
    return [...(this.invert ? ['!'] : []), '--dscp', this.hex()];
  }

  print(): string {
    return ` DSCP match ${this.invert ? '!' : ''}${this.hex()}`;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'cmp',
          left: [{ selector: { kind: 'payload', field: 'ip dscp' } }],
          op: this.invert ? 'ne' : 'eq',
          right: { kind: 'number', value: this.dscp },
        },
      ],
      xlate: undefined,
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const dscpMatch: MatchModule = { name: 'dscp', create: () => new DscpMatch() };
