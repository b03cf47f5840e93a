// The NAT targets (libxt_NAT.c: DNAT rev 2 and SNAT, libxt_MASQUERADE.c, libxt_REDIRECT.c): one address range
// and port range with --random, --random-fully and --persistent; only in the nat table at the kernel's hooks.

import { formatIpv4, parseIpv4 } from '../../wire/address.ts';
import type { NatFlags, NatRange } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  mustBeSpecified,
  type OptionDef,
  type ParseContext,
  type TargetModule,
  type Usage,
  type XtTarget,
} from './extension.ts';
import { parseDecimal, parsePort } from './names.ts';

/** Protocols with ports NAT can change (tcp, udp, dccp, sctp, udplite, icmp has its id). */
const PORT_PROTOS = [6, 17, 33, 132, 136];

type Kind = 'DNAT' | 'SNAT' | 'MASQUERADE' | 'REDIRECT';

/** libxt_NAT's parse_ports: `PORT[-PORT]`, each a number or a service name (xtables_getportbyname: any protocol). */
function parsePorts(text: string): [number, number] | undefined {
  const dash = text.indexOf('-');
  const port = (word: string) => parseDecimal(word, 0xffff) ?? parsePort(word, undefined);
  const low = port(dash < 0 ? text : text.slice(0, dash));
  const high = dash < 0 ? low : port(text.slice(dash + 1));
  if (low === undefined || high === undefined || high < low) return undefined;
  return [low, high];
}

export class NatTarget implements XtTarget {
  readonly kind = 'target';
  readonly options: readonly OptionDef[];
  addrLow: number | undefined;
  addrHigh: number | undefined;
  portLow: number | undefined;
  portHigh: number | undefined;
  random = false;
  fullyRandom = false;
  persistent = false;
  private given = false;

  constructor(readonly name: Kind) {
    const flags: OptionDef[] = [{ name: 'random', arg: false, invert: false }];
    if (name !== 'REDIRECT' && name !== 'DNAT')
      flags.push({ name: 'random-fully', arg: false, invert: false });
    if (name === 'DNAT' || name === 'SNAT') flags.push({ name: 'persistent', arg: false, invert: false });
    const range = name === 'DNAT' ? 'to-destination' : name === 'SNAT' ? 'to-source' : 'to-ports';
    this.options = [{ name: range, arg: true, invert: false }, ...flags];
  }

  get listName(): string {
    return this.name;
  }

  parse(option: string, args: readonly string[], _invert: boolean, ctx: ParseContext): IptError | undefined {
    switch (option) {
      case 'random':
        this.random = true;
        return undefined;
      case 'random-fully':
        this.fullyRandom = true;
        return undefined;
      case 'persistent':
        this.persistent = true;
        return undefined;
    }
    if (this.given) return param(`${this.name}: Multiple --${option} not supported`);
    this.given = true;
    const text = args[0]!;
    if (option === 'to-ports') {
      const ports = parsePorts(text);
      if (ports === undefined) return param(`Port range \`${text}' invalid\n`);
      if (!PORT_PROTOS.includes(ctx.proto) || ctx.protoInvert)
        return param('Need TCP, UDP, SCTP or DCCP with port specification');
      [this.portLow, this.portHigh] = ports;
      return undefined;
    }
    const colon = text.indexOf(':');
    const addrText = colon < 0 ? text : text.slice(0, colon);
    if (colon >= 0) {
      const ports = parsePorts(text.slice(colon + 1));
      if (ports === undefined) return param(`Port range \`${text.slice(colon + 1)}' invalid\n`);
      if (!PORT_PROTOS.includes(ctx.proto) || ctx.protoInvert)
        return param('Need TCP, UDP, SCTP or DCCP with port specification');
      [this.portLow, this.portHigh] = ports;
    }
    if (addrText !== '') {
      const dash = addrText.indexOf('-');
      const low = parseIpv4(dash < 0 ? addrText : addrText.slice(0, dash));
      const high = dash < 0 ? low : parseIpv4(addrText.slice(dash + 1));
      if (low === undefined || high === undefined) return param(`Bad IP address "${addrText}"`);
      this.addrLow = low >>> 0;
      this.addrHigh = high >>> 0;
    }
    return undefined;
  }

  finish(): IptError | undefined {
    if (!this.given && (this.name === 'DNAT' || this.name === 'SNAT'))
      return param(mustBeSpecified(this.name, this.name === 'DNAT' ? 'to-destination' : 'to-source'));
    return undefined;
  }

  private rangeText(): string {
    let text = '';
    if (this.addrLow !== undefined) {
      text += formatIpv4(this.addrLow);
      if (this.addrHigh !== undefined && this.addrHigh !== this.addrLow)
        text += `-${formatIpv4(this.addrHigh)}`;
    }
    if (this.portLow !== undefined) {
      text += `:${this.portLow}`;
      if (this.portHigh !== undefined && this.portHigh !== this.portLow) text += `-${this.portHigh}`;
    }
    return text;
  }

  private portsText(): string {
    if (this.portLow === undefined) return '';
    return this.portHigh !== undefined && this.portHigh !== this.portLow
      ? `${this.portLow}-${this.portHigh}`
      : `${this.portLow}`;
  }

  save(): string[] {
    const words: string[] = [];
    if (this.name === 'DNAT' || this.name === 'SNAT') {
      if (this.given) words.push(this.name === 'DNAT' ? '--to-destination' : '--to-source', this.rangeText());
    } else if (this.portLow !== undefined) words.push('--to-ports', this.portsText());
    if (this.random) words.push('--random');
    if (this.fullyRandom) words.push('--random-fully');
    if (this.persistent) words.push('--persistent');
    return words;
  }

  print(): string {
    let text = '';
    if (this.name === 'DNAT' || this.name === 'SNAT') text += ` to:${this.rangeText()}`;
    else if (this.portLow !== undefined)
      text +=
        this.name === 'MASQUERADE' ? ` masq ports: ${this.portsText()}` : ` redir ports ${this.portsText()}`;
    if (this.random) text += ' random';
    if (this.fullyRandom) text += ' random-fully';
    if (this.persistent) text += ' persistent';
    return text;
  }

  compile(): Compiled {
    const range: NatRange = {
      addrLow: this.addrLow,
      addrHigh: this.addrHigh,
      portLow: this.portLow,
      portHigh: this.portHigh,
    };
    const flags: NatFlags = {
      random: this.random,
      fullyRandom: this.fullyRandom,
      persistent: this.persistent,
    };
    const type =
      this.name === 'DNAT'
        ? 'dnat'
        : this.name === 'SNAT'
          ? 'snat'
          : this.name === 'MASQUERADE'
            ? 'masquerade'
            : 'redirect';
    return { exprs: [{ kind: 'nat', type, range, flags }], xlate: this.xlate(type) };
  }

  /** DNAT/SNAT/MASQUERADE/REDIRECT xlate: `dnat to A:P`, then the flags joined by commas. */
  private xlate(type: string): string {
    let text = type;
    if (type === 'dnat' || type === 'snat') text += ` to ${this.rangeText()}`;
    else if (this.portLow !== undefined) text += ` to :${this.portsText()}`;
    const flags: string[] = [];
    if (this.random) flags.push('random');
    if (this.fullyRandom) flags.push('fully-random');
    if (this.persistent) flags.push('persistent');
    if (flags.length > 0) text += ` ${flags.join(',')}`;
    return text;
  }

  /** The kernel's checkentry: nat table, and the hooks each kind works at. */
  usage(): Usage | undefined {
    switch (this.name) {
      case 'DNAT':
      case 'REDIRECT':
        return { tables: ['nat'], hooks: ['prerouting', 'output'] };
      case 'SNAT':
        return { tables: ['nat'], hooks: ['postrouting', 'input'] };
      case 'MASQUERADE':
        return { tables: ['nat'], hooks: ['postrouting'] };
    }
  }
}

export const dnatTarget: TargetModule = { name: 'DNAT', create: () => new NatTarget('DNAT') };
export const snatTarget: TargetModule = { name: 'SNAT', create: () => new NatTarget('SNAT') };
export const masqueradeTarget: TargetModule = {
  name: 'MASQUERADE',
  create: () => new NatTarget('MASQUERADE'),
};
export const redirectTarget: TargetModule = { name: 'REDIRECT', create: () => new NatTarget('REDIRECT') };
