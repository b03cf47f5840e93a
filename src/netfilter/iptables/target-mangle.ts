// The mangle table's header targets: CHECKSUM --checksum-fill (libxt_CHECKSUM.c), ECN (libipt_ECN.c:
// --ecn-tcp-remove, --ecn-tcp-cwr/-ece 0|1, --ecn-ip-ect 0-3), TOS (libxt_TOS.c rev 1: --set-tos, --and-tos,
// --or-tos, --xor-tos) and DSCP (libxt_DSCP.c: --set-dscp, --set-dscp-class). Each is valid in mangle only.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotCombine,
  mustBeSpecified,
  type OptionDef,
  type ParseContext,
  type TargetModule,
  type Usage,
  type XtTarget,
} from './extension.ts';
import { DSCP_CLASSES } from './match-dscp.ts';
import { hex2, parseTos, TOS_NAMES } from './match-tos.ts';
import { parseDecimal, parseUnsigned } from './names.ts';

const MANGLE: Usage = { tables: ['mangle'] };

export class ChecksumTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'CHECKSUM';
  readonly listName = 'CHECKSUM';
  readonly options: readonly OptionDef[] = [{ name: 'checksum-fill', arg: false, invert: false }];
  fill = false;

  parse(): IptError | undefined {
    this.fill = true;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.fill ? undefined : param(mustBeSpecified('CHECKSUM', 'checksum-fill'));
  }

  save(): string[] {
    return ['--checksum-fill'];
  }

  print(): string {
    return ' CHECKSUM fill';
  }

  compile(): Compiled {
    return { exprs: [{ kind: 'xt-target', options: { name: 'CHECKSUM' } }], xlate: 'xt target CHECKSUM' };
  }

  usage(): Usage | undefined {
    return MANGLE;
  }
}

export class EcnTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'ECN';
  readonly listName = 'ECN';
  readonly options: readonly OptionDef[] = [
    { name: 'ecn-tcp-remove', arg: false, invert: false },
    { name: 'ecn-tcp-cwr', arg: true, invert: false },
    { name: 'ecn-tcp-ece', arg: true, invert: false },
    { name: 'ecn-ip-ect', arg: true, invert: false },
  ];
  cwr: number | undefined;
  ece: number | undefined;
  ect: number | undefined;

  parse(option: string, args: readonly string[]): IptError | undefined {
    if (option === 'ecn-tcp-remove') {
      this.cwr = 0;
      this.ece = 0;
      return undefined;
    }
    const max = option === 'ecn-ip-ect' ? 3 : 1;
    const value = parseDecimal(args[0] ?? '', max);
    if (value === undefined)
      return param(`ECN: bad value for option "--${option}", or out of range (0-${max}).\n`);
    if (option === 'ecn-tcp-cwr') this.cwr = value;
    else if (option === 'ecn-tcp-ece') this.ece = value;
    else this.ect = value;
    return undefined;
  }

  finish(): IptError | undefined {
    if (this.cwr === undefined && this.ece === undefined && this.ect === undefined)
      return param('ECN target: An operation is required');
    return undefined;
  }

  private removes(): boolean {
    return this.cwr === 0 && this.ece === 0 && this.ect === undefined;
  }

  save(): string[] {
    if (this.removes()) return ['--ecn-tcp-remove'];
    const words: string[] = [];
    if (this.ece !== undefined) words.push('--ecn-tcp-ece', `${this.ece}`);
    if (this.cwr !== undefined) words.push('--ecn-tcp-cwr', `${this.cwr}`);
    if (this.ect !== undefined) words.push('--ecn-ip-ect', `${this.ect}`);
    return words;
  }

  print(): string {
    if (this.removes()) return ' ECN TCP remove';
    let text = ' ECN';
    if (this.ece !== undefined) text += ` ECE=${this.ece}`;
    if (this.cwr !== undefined) text += ` CWR=${this.cwr}`;
    if (this.ect !== undefined) text += ` ECT codepoint=${this.ect}`;
    return text;
  }

  compile(): Compiled {
    return {
      exprs: [{ kind: 'xt-target', options: { name: 'ECN', ece: this.ece, cwr: this.cwr, ect: this.ect } }],
      xlate: 'xt target ECN',
    };
  }

  /** ecn_tg_check: mangle only; the TCP operations need `-p tcp`. */
  usage(ctx: ParseContext): Usage | undefined {
    const tcp = this.cwr !== undefined || this.ece !== undefined;
    if (tcp && (ctx.proto !== 6 || ctx.protoInvert)) return { never: true };
    return MANGLE;
  }
}

export class TosTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'TOS';
  readonly listName = 'TOS';
  readonly options: readonly OptionDef[] = [
    { name: 'set-tos', arg: true, invert: false },
    { name: 'and-tos', arg: true, invert: false },
    { name: 'or-tos', arg: true, invert: false },
    { name: 'xor-tos', arg: true, invert: false },
  ];
  value = 0;
  mask = 0;
  given = false;
  private readonly actions: string[] = [];

  parse(option: string, args: readonly string[]): IptError | undefined {
    const text = args[0] ?? '';
    this.actions.push(option);
    if (option === 'set-tos') {
      const parsed = parseTos(text);
      if ('kind' in parsed) return parsed;
      this.value = parsed.value;
      this.mask = parsed.mask;
    } else {
      const bits = parseUnsigned(text, 0xff);
      if (bits === undefined)
        return param(`TOS: bad value for option "--${option}", or out of range (0-255).\n`);
      if (option === 'and-tos') [this.value, this.mask] = [0, ~bits & 0xff];
      else if (option === 'or-tos') [this.value, this.mask] = [bits, bits];
      else [this.value, this.mask] = [bits, 0];
    }
    this.given = true;
    return undefined;
  }

  /** x6: the four actions exclude each other, reported in definition order. */
  finish(): IptError | undefined {
    const order = ['set-tos', 'and-tos', 'or-tos', 'xor-tos'].filter((action) =>
      this.actions.includes(action),
    );
    if (order.length > 1) return param(cannotCombine('TOS', order[0]!, order[1]!));
    return this.given ? undefined : param('TOS: An action is required');
  }

  save(): string[] {
    return ['--set-tos', `${hex2(this.value)}/${hex2(this.mask)}`];
  }

  /** tos_tg_print_v1: numeric VALUE/MASK with -n, else a name or the and/or/xor form. */
  print(numeric: boolean): string {
    if (numeric) return ` TOS set ${hex2(this.value)}/${hex2(this.mask)}`;
    const name = TOS_NAMES.find(([, value]) => value === this.value);
    // tos_try_print_symbolic(" TOS set", ...) after the target's own blank: `  TOS setNAME`.
    if (this.mask === 0x3f && name !== undefined) return `  TOS set${name[0]}`;
    if (this.value === 0) return ` TOS and ${hex2(~this.mask & 0xff)}`;
    if (this.value === this.mask) return ` TOS or ${hex2(this.value)}`;
    if (this.mask === 0) return ` TOS xor ${hex2(this.value)}`;
    return ` TOS set ${hex2(this.value)}/${hex2(this.mask)}`;
  }

  /** tos_xlate_v1 as iptables 1.8.9 has it (it names the IPv6 field and shifts the value to a DSCP). */
  private xlate(): string {
    if (this.mask === 0xff || this.mask === 0x3f) return `ip6 dscp set ${hex2(this.value >> 2)}`;
    if (this.value === 0) return `ip6 dscp set ip6 dscp and ${hex2((~this.mask & 0xff) >> 2)}`;
    if (this.value === this.mask) return `ip6 dscp set ip6 dscp or ${hex2(this.value >> 2)}`;
    if (this.mask === 0) return `ip6 dscp set ip6 dscp xor ${hex2(this.value >> 2)}`;
    return 'xt target TOS';
  }

  compile(): Compiled {
    return {
      exprs: [{ kind: 'xt-target', options: { name: 'TOS', value: this.value, mask: this.mask } }],
      xlate: this.xlate(),
    };
  }

  usage(): Usage | undefined {
    return MANGLE;
  }
}

export class DscpTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'DSCP';
  readonly listName = 'DSCP';
  readonly options: readonly OptionDef[] = [
    { name: 'set-dscp', arg: true, invert: false },
    { name: 'set-dscp-class', arg: true, invert: false },
  ];
  dscp = 0;
  private readonly given = new Set<string>();

  parse(option: string, args: readonly string[]): IptError | undefined {
    const text = args[0] ?? '';
    this.given.add(option);
    if (option === 'set-dscp') {
      const value = parseUnsigned(text, 63);
      if (value === undefined)
        return param('DSCP: bad value for option "--set-dscp", or out of range (0-63).\n');
      this.dscp = value;
      return undefined;
    }
    const value = DSCP_CLASSES[text.toUpperCase()];
    if (value === undefined) return param(`Invalid DSCP value \`${text}'`);
    this.dscp = value;
    return undefined;
  }

  finish(): IptError | undefined {
    if (this.given.size === 2) return param(cannotCombine('DSCP', 'set-dscp', 'set-dscp-class'));
    if (this.given.size === 0) return param('DSCP target: Parameter --set-dscp is required');
    return undefined;
  }

  save(): string[] {
    return ['--set-dscp', hex2(this.dscp)];
  }

  print(): string {
    return ` DSCP set ${hex2(this.dscp)}`;
  }

  compile(): Compiled {
    return {
      exprs: [{ kind: 'xt-target', options: { name: 'DSCP', dscp: this.dscp } }],
      xlate: `ip dscp set ${hex2(this.dscp)}`,
    };
  }

  usage(): Usage | undefined {
    return MANGLE;
  }
}

export const checksumTarget: TargetModule = { name: 'CHECKSUM', create: () => new ChecksumTarget() };
export const ecnTarget: TargetModule = { name: 'ECN', create: () => new EcnTarget() };
export const tosTarget: TargetModule = { name: 'TOS', create: () => new TosTarget() };
export const dscpTarget: TargetModule = { name: 'DSCP', create: () => new DscpTarget() };
