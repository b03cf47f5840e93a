// The NETMAP target (libipt_NETMAP.c, xt_NETMAP.c): `--to ADDR[/MASK]` maps the destination (PREROUTING,
// OUTPUT) or source (INPUT, POSTROUTING) address into that network, host bits kept; nat table only.

import { formatIpv4 } from '../../wire/address.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  mustBeSpecified,
  type OptionDef,
  type TargetModule,
  type Usage,
  type XtTarget,
} from './extension.ts';
import { maskLength, parseAddrMask } from './names.ts';

export class NetmapTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'NETMAP';
  readonly listName = 'NETMAP';
  readonly options: readonly OptionDef[] = [{ name: 'to', arg: true, invert: false }];
  addr: number | undefined;
  mask = 0xffff_ffff;

  parse(_option: string, args: readonly string[]): IptError | undefined {
    const parsed = parseAddrMask(args[0]!);
    if (typeof parsed === 'string') return param('getaddrinfo: Name or service not known\n');
    this.mask = parsed.mask;
    this.addr = (parsed.addr & parsed.mask) >>> 0;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.addr === undefined ? param(mustBeSpecified('NETMAP', 'to')) : undefined;
  }

  private text(): string {
    return `${formatIpv4(this.addr ?? 0)}/${maskLength(this.mask)}`;
  }

  save(): string[] {
    return ['--to', this.text()];
  }

  print(): string {
    return ` to:${this.text()}`;
  }

  compile(): Compiled {
    return {
      exprs: [{ kind: 'xt-target', options: { name: 'NETMAP', addr: this.addr ?? 0, mask: this.mask } }],
      xlate: 'xt target NETMAP',
    };
  }

  usage(): Usage | undefined {
    return { tables: ['nat'] };
  }
}

export const netmapTarget: TargetModule = { name: 'NETMAP', create: () => new NetmapTarget() };
