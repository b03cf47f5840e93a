// The REJECT target (libipt_REJECT.c, ipt_REJECT.c): an ICMP unreachable or a TCP reset, then drop; only in
// the INPUT, FORWARD and OUTPUT hooks, and tcp-reset only with -p tcp.

import type { RejectWith } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import type { Compiled, OptionDef, ParseContext, TargetModule, Usage, XtTarget } from './extension.ts';

interface RejectType {
  readonly name: string;
  readonly alias: string;
  readonly with: RejectWith;
  /** nft's `reject with icmp type X` name. */
  readonly nft: string;
}

const TYPES: readonly RejectType[] = [
  {
    name: 'icmp-net-unreachable',
    alias: 'net-unreach',
    with: { kind: 'icmp', code: 0 },
    nft: 'net-unreachable',
  },
  {
    name: 'icmp-host-unreachable',
    alias: 'host-unreach',
    with: { kind: 'icmp', code: 1 },
    nft: 'host-unreachable',
  },
  {
    name: 'icmp-port-unreachable',
    alias: 'port-unreach',
    with: { kind: 'icmp', code: 3 },
    nft: 'port-unreachable',
  },
  {
    name: 'icmp-proto-unreachable',
    alias: 'proto-unreach',
    with: { kind: 'icmp', code: 2 },
    nft: 'prot-unreachable',
  },
  {
    name: 'icmp-net-prohibited',
    alias: 'net-prohib',
    with: { kind: 'icmp', code: 9 },
    nft: 'net-prohibited',
  },
  {
    name: 'icmp-host-prohibited',
    alias: 'host-prohib',
    with: { kind: 'icmp', code: 10 },
    nft: 'host-prohibited',
  },
  {
    name: 'icmp-admin-prohibited',
    alias: 'admin-prohib',
    with: { kind: 'icmp', code: 13 },
    nft: 'admin-prohibited',
  },
  { name: 'tcp-reset', alias: 'tcp-rst', with: { kind: 'tcp-reset' }, nft: '' },
];

export class RejectTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'REJECT';
  readonly listName = 'REJECT';
  readonly options: readonly OptionDef[] = [{ name: 'reject-with', arg: true, invert: false }];
  type: RejectType = TYPES[2]!;

  parse(_option: string, args: readonly string[]): IptError | undefined {
    const type = TYPES.find((entry) => entry.name === args[0] || entry.alias === args[0]);
    if (type === undefined) return param(`unknown reject type "${args[0]}"`);
    this.type = type;
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  save(): string[] {
    return ['--reject-with', this.type.name];
  }

  print(): string {
    return ` reject-with ${this.type.name}`;
  }

  compile(): Compiled {
    const xlate =
      this.type.with.kind === 'tcp-reset'
        ? 'reject with tcp reset'
        : this.type.with.code === 3
          ? 'reject'
          : `reject with icmp type ${this.type.nft}`;
    return { exprs: [{ kind: 'reject', with: this.type.with }], xlate };
  }

  usage(ctx: ParseContext): Usage | undefined {
    if (this.type.with.kind === 'tcp-reset' && (ctx.proto !== 6 || ctx.protoInvert)) return { never: true };
    return { hooks: ['input', 'forward', 'output'] };
  }
}

export const rejectTarget: TargetModule = { name: 'REJECT', create: () => new RejectTarget() };
