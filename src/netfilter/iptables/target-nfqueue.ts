// The NFQUEUE target (libxt_NFQUEUE.c rev 3): --queue-num, --queue-balance A:B, --queue-bypass,
// --queue-cpu-fanout. packetlab has no nfnetlink_queue listener: nf_queue fails with ESRCH and the kernel drops
// the packet, or with --queue-bypass lets it go on past the hook (nf_hook_slow), which is what evaluates here.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotCombine,
  type OptionDef,
  type TargetModule,
  type Usage,
  type XtTarget,
} from './extension.ts';
import { parseDecimal } from './names.ts';

export class NfqueueTarget implements XtTarget {
  readonly kind = 'target';
  readonly name = 'NFQUEUE';
  readonly listName = 'NFQUEUE';
  readonly options: readonly OptionDef[] = [
    { name: 'queue-num', arg: true, invert: false },
    { name: 'queue-balance', arg: true, invert: false },
    { name: 'queue-bypass', arg: false, invert: false },
    { name: 'queue-cpu-fanout', arg: false, invert: false },
  ];
  num = 0;
  balance: [number, number] | undefined;
  bypass = false;
  fanout = false;
  private numGiven = false;

  parse(option: string, args: readonly string[]): IptError | undefined {
    const text = args[0] ?? '';
    switch (option) {
      case 'queue-num': {
        const value = parseDecimal(text, 0xffff);
        if (value === undefined)
          return param('NFQUEUE: bad value for option "--queue-num", or out of range (0-65535).\n');
        this.num = value;
        this.numGiven = true;
        return undefined;
      }
      case 'queue-balance': {
        const parts = text.split(':');
        const low = parseDecimal(parts[0] ?? '', 0xffff);
        const high = parseDecimal(parts[1] ?? '', 0xffff);
        if (parts.length !== 2 || low === undefined || high === undefined)
          return param(`Bad range "${text}"`);
        if (low >= high) return param(`${low} should be less than ${high}`);
        this.balance = [low, high];
        return undefined;
      }
      case 'queue-bypass':
        this.bypass = true;
        return undefined;
      case 'queue-cpu-fanout':
        this.fanout = true;
        return undefined;
    }
    return undefined;
  }

  finish(): IptError | undefined {
    if (this.numGiven && this.balance !== undefined)
      return param(cannotCombine('NFQUEUE', 'queue-num', 'queue-balance'));
    return undefined;
  }

  save(): string[] {
    const words =
      this.balance === undefined
        ? ['--queue-num', `${this.num}`]
        : ['--queue-balance', `${this.balance[0]}:${this.balance[1]}`];
    if (this.bypass) words.push('--queue-bypass');
    if (this.fanout) words.push('--queue-cpu-fanout');
    return words;
  }

  print(): string {
    let text =
      this.balance === undefined
        ? ` NFQUEUE num ${this.num}`
        : ` NFQUEUE balance ${this.balance[0]}:${this.balance[1]}`;
    if (this.bypass) text += ' bypass';
    if (this.fanout) text += ' cpu-fanout';
    return text;
  }

  compile(): Compiled {
    const num = this.balance === undefined ? `${this.num}` : `${this.balance[0]}-${this.balance[1]}`;
    const flags = [...(this.bypass ? ['bypass'] : []), ...(this.fanout ? ['fanout'] : [])];
    const xlate = `queue num ${num}${flags.length > 0 ? ` ${flags.join(',')}` : ''}`;
    return { exprs: [{ kind: 'xt-target', options: { name: 'NFQUEUE', bypass: this.bypass } }], xlate };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const nfqueueTarget: TargetModule = { name: 'NFQUEUE', create: () => new NfqueueTarget() };
