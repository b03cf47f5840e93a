// The TRACE target (libxt_TRACE.c): sets the packet's nftrace flag in the raw table, which iptables-nft
// writes natively as `meta nftrace set 1`; xtables-monitor --trace then prints the packet's way (monitor.ts).

import type { IptError } from './errors.ts';
import type { Compiled, OptionDef, TargetModule, Usage, XtTarget } from './extension.ts';

export class TraceTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'TRACE';
  readonly listName = 'TRACE';
  readonly options: readonly OptionDef[] = [];

  parse(): IptError | undefined {
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  save(): string[] {
    return [];
  }

  print(): string {
    return '';
  }

  compile(): Compiled {
    return {
      exprs: [{ kind: 'meta-set', key: 'nftrace', source: { kind: 'constant', value: 1 } }],
      xlate: undefined,
    };
  }

  /** iptables-nft writes TRACE natively (`meta nftrace set 1`), so the kernel's raw-only check never runs. */
  usage(): Usage | undefined {
    return undefined;
  }
}

export const traceTarget: TargetModule = { name: 'TRACE', create: () => new TraceTarget() };
