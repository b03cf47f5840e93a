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
import { parsePort } from './names.ts';

/** Protocols with ports NAT can change (tcp, udp, dccp, sctp, udplite, icmp has its id). */
const PORT_PROTOS = [6, 17, 33, 132, 136];

type Kind = 'DNAT' | 'SNAT' | 'MASQUERADE' | 'REDIRECT';

interface PortSpec {
  readonly low: number;
  readonly high: number;
  /** `/BASE` after a range (NF_NAT_RANGE_PROTO_OFFSET). */
  readonly base: number | undefined;
}

/** xtables_strtoui with base 0 on the start of `text`: the number and what follows it. */
function leadingNumber(text: string, min: number): { value: number; rest: string } | undefined {
  const match = /^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(text);
  if (match === null) return undefined;
  const digits = match[1]!;
  const value = /^0[xX]/.test(digits)
    ? Number(digits)
    : digits.startsWith('0')
      ? Number.parseInt(digits, 8)
      : Number(digits);
  if (value < min || value > 0xffff) return undefined;
  return { value, rest: text.slice(digits.length) };
}

/**
 * One port as parse_ports reads it: a number (and what follows), else the whole text as a service name (not for
 * the upper end of a range, which iptables 1.8.9 takes as a number only).
 */
function onePort(text: string, min = 0, service = true): { value: number; rest: string } | string {
  const number = leadingNumber(text, min);
  if (number !== undefined) return number;
  const port = service ? parsePort(text, undefined) : undefined;
  return port === undefined || /^[0-9]/.test(text) ? `Port \`${text}' not valid` : { value: port, rest: '' };
}

/** libxt_NAT.c parse_ports: `PORT[-PORT[/BASE]]`, numbers or service names, with its messages. */
function parsePorts(text: string, reread: boolean): PortSpec | string {
  const first = onePort(text);
  if (typeof first === 'string') return first;
  if (first.rest === '') return { low: first.value, high: first.value, base: undefined };
  if (first.rest.startsWith(':')) return 'Invalid port:port syntax - use dash';
  if (!first.rest.startsWith('-')) return `Garbage after port value: \`${first.rest}'`;
  const maxText = first.rest.slice(1);
  const second = onePort(maxText, 0, false);
  if (typeof second === 'string') return second;
  if (second.value < first.value) return `Port range \`${maxText}' funky`;
  if (second.rest === '') return { low: first.value, high: second.value, base: undefined };
  if (!second.rest.startsWith('/')) return `Garbage after port range: \`${second.rest}'`;
  // iptables-save prints SNAT's and MASQUERADE's base as 0, which only reading it back takes.
  const base = onePort(second.rest.slice(1), reread ? 0 : 1);
  if (typeof base === 'string') return base;
  return { low: first.value, high: second.value, base: base.value };
}

export class NatTarget implements XtTarget {
  readonly kind = 'target';
  readonly options: readonly OptionDef[];
  addrLow: number | undefined;
  addrHigh: number | undefined;
  portLow: number | undefined;
  portHigh: number | undefined;
  /** `/BASE`: DNAT keeps it; SNAT and MASQUERADE (revisions without a base) keep only the flag, as base 0. */
  portBase: number | undefined;
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
    const portsOk = PORT_PROTOS.includes(ctx.proto) && !ctx.protoInvert;
    if (option === 'to-ports') {
      if (!portsOk) return param('Need TCP, UDP, SCTP or DCCP with port specification');
      const ports = parsePorts(text, ctx.reread === true);
      if (typeof ports === 'string') return param(ports);
      return this.setPorts(ports);
    }
    const colon = text.indexOf(':');
    const addrText = colon < 0 ? text : text.slice(0, colon);
    if (colon >= 0) {
      // A second colon makes the whole an (IPv6-looking) address.
      if (text.indexOf(':', colon + 1) >= 0) return param(`Bad IP address "${text}"`);
      if (!portsOk) return param('Need TCP, UDP, SCTP or DCCP with port specification');
      const ports = parsePorts(text.slice(colon + 1), ctx.reread === true);
      if (typeof ports === 'string') return param(ports);
      const error = this.setPorts(ports);
      if (error !== undefined) return error;
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

  /** REDIRECT's revision has no shifted portmap; SNAT's and MASQUERADE's keep the flag with base 0. */
  private setPorts(ports: PortSpec): IptError | undefined {
    if (ports.base !== undefined && this.name === 'REDIRECT')
      return param('Shifted portmap ranges not supported with this kernel');
    this.portLow = ports.low;
    this.portHigh = ports.high;
    if (ports.base !== undefined) this.portBase = this.name === 'DNAT' ? ports.base : 0;
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
    if (this.portLow !== undefined) text += `:${this.portsText()}`;
    return text;
  }

  private portsText(): string {
    if (this.portLow === undefined) return '';
    const base = this.portBase === undefined ? '' : `/${this.portBase}`;
    return this.portHigh !== undefined && (this.portHigh !== this.portLow || base !== '')
      ? `${this.portLow}-${this.portHigh}${base}`
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
      ...(this.portBase === undefined ? {} : { portBase: this.portBase }),
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
    // A shifted portmap has no nft translation.
    if (this.portBase !== undefined) return `xt target ${this.name}`;
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
