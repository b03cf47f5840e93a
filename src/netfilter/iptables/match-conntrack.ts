// The conntrack match and its `state` alias (libxt_conntrack.c rev 3, xt_conntrack.c): --ctstate, --ctproto,
// --ctorig/--ctrepl addresses and ports, --ctstatus, --ctexpire, --ctdir. iptables-nft keeps it as an xt match;
// the engine sees native ct comparisons, plus a `conntrack` xt match for the virtual SNAT/DNAT states.

import { formatIpv4 } from '../../wire/address.ts';
import type { CtKey, Expr, XtMatchOptions } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotBeInverted,
  type MatchModule,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { type AddrMask, formatAddrMask, parseAddrMask, parseDecimal, parseProtocol } from './names.ts';

/** XT_CONNTRACK_STATE_* bits (the nft ct state bits plus the virtual SNAT and DNAT). */
const STATES: readonly (readonly [string, number])[] = [
  ['INVALID', 0x01],
  ['NEW', 0x08],
  ['RELATED', 0x04],
  ['ESTABLISHED', 0x02],
  ['UNTRACKED', 0x40],
  ['SNAT', 0x100],
  ['DNAT', 0x200],
];
const VIRTUAL_STATES = 0x300;

/** IPS_* status bits --ctstatus names. */
const STATUSES: readonly (readonly [string, number])[] = [
  ['EXPECTED', 0x01],
  ['SEEN_REPLY', 0x02],
  ['ASSURED', 0x04],
  ['CONFIRMED', 0x08],
];

/** IPS_SRC_NAT and IPS_DST_NAT. */
const IPS_SRC_NAT = 0x10;
const IPS_DST_NAT = 0x20;

type ConntrackOptions = Extract<XtMatchOptions, { name: 'conntrack' }>;

/**
 * conntrack_mt_state: `stateBit` is the packet's ct state bit (1 invalid, 2 established, 4 related, 8 new,
 * 64 untracked), `status` its entry's IPS_* bits (0 without an entry).
 */
export function conntrackStateMatches(options: ConntrackOptions, stateBit: number, status: number): boolean {
  let bits = stateBit;
  if (status & IPS_SRC_NAT) bits |= 0x100;
  if (status & IPS_DST_NAT) bits |= 0x200;
  return ((bits & options.stateMask) !== 0) !== options.invert;
}

interface Inverted<T> {
  readonly value: T;
  readonly invert: boolean;
}

type AddrField = 'ctorigsrc' | 'ctorigdst' | 'ctreplsrc' | 'ctrepldst';
type PortField = 'ctorigsrcport' | 'ctorigdstport' | 'ctreplsrcport' | 'ctrepldstport';

const ADDR_FIELDS: readonly AddrField[] = ['ctorigsrc', 'ctorigdst', 'ctreplsrc', 'ctrepldst'];
const PORT_FIELDS: readonly PortField[] = [
  'ctorigsrcport',
  'ctorigdstport',
  'ctreplsrcport',
  'ctrepldstport',
];

function fieldDir(field: string): 'original' | 'reply' {
  return field.startsWith('ctorig') ? 'original' : 'reply';
}

function names(table: readonly (readonly [string, number])[], mask: number, lower: boolean): string {
  const list = table.filter(([, bit]) => mask & bit).map(([name]) => name);
  const words = list.length === 0 ? ['NONE'] : list;
  return words.map((word) => (lower ? word.toLowerCase().replace('_', '-') : word)).join(',');
}

function parseList(
  table: readonly (readonly [string, number])[],
  text: string,
  allowNone: boolean,
): number | undefined {
  let mask = 0;
  for (const word of text.split(',')) {
    if (allowNone && word === 'NONE') continue;
    const entry = table.find(([name]) => name === word.toUpperCase());
    if (entry === undefined) return undefined;
    mask |= entry[1];
  }
  return mask;
}

function parseRange(text: string, max: number): [number, number] | undefined {
  const colon = text.indexOf(':');
  if (colon < 0) {
    const value = parseDecimal(text, max);
    return value === undefined ? undefined : [value, value];
  }
  const low = parseDecimal(text.slice(0, colon), max);
  const high = parseDecimal(text.slice(colon + 1), max);
  return low === undefined || high === undefined || low > high ? undefined : [low, high];
}

function hostOrNet(value: AddrMask): string {
  return value.mask === 0xffff_ffff ? formatIpv4(value.addr) : formatAddrMask(value);
}

export class ConntrackMatch implements XtMatch {
  readonly kind = 'match';
  readonly options: readonly OptionDef[];
  state: Inverted<number> | undefined;
  proto: Inverted<number> | undefined;
  readonly addrs = new Map<AddrField, Inverted<AddrMask>>();
  readonly ports = new Map<PortField, Inverted<[number, number]>>();
  status: Inverted<number> | undefined;
  expires: Inverted<[number, number]> | undefined;
  dir: 'ORIGINAL' | 'REPLY' | undefined;

  /** `alias` is the `state` match: only --state, saved and printed under its own name. */
  constructor(readonly name: 'conntrack' | 'state') {
    this.options =
      name === 'state'
        ? [{ name: 'state', arg: true, invert: true }]
        : [
            { name: 'ctstate', arg: true, invert: true },
            { name: 'ctproto', arg: true, invert: true },
            ...ADDR_FIELDS.map((field) => ({ name: field, arg: true, invert: true })),
            ...PORT_FIELDS.map((field) => ({ name: field, arg: true, invert: true })),
            { name: 'ctstatus', arg: true, invert: true },
            { name: 'ctexpire', arg: true, invert: true },
            { name: 'ctdir', arg: true, invert: true },
          ];
  }

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0]!;
    switch (option) {
      case 'state':
      case 'ctstate': {
        const mask = parseList(STATES, text, false);
        if (mask === undefined) {
          const bad = text.split(',').find((word) => !STATES.some(([name]) => name === word.toUpperCase()));
          return param(option === 'state' ? `Bad state "${bad}"` : `Bad ctstate "${bad}"`);
        }
        // -m state parses with conntrack's state names, then refuses the virtual SNAT and DNAT ones (whole list).
        const virtual = text.split(',').some((word) => ['SNAT', 'DNAT'].includes(word.toUpperCase()));
        if (option === 'state' && virtual) return param(`Bad state "${text}"`);
        this.state = { value: mask, invert };
        return undefined;
      }
      case 'ctproto': {
        const proto = parseProtocol(text);
        if (proto === undefined) return param(`unknown protocol "${text}" specified`);
        if (proto === 0) return param('conntrack: rule would never match protocol\n');
        this.proto = { value: proto, invert };
        return undefined;
      }
      case 'ctstatus': {
        const mask = parseList(STATUSES, text, true);
        if (mask === undefined) return param(`Bad ctstatus "${text}"`);
        this.status = { value: mask, invert };
        return undefined;
      }
      case 'ctexpire': {
        const range = parseRange(text, 0xffff_ffff);
        if (range === undefined)
          return param(`conntrack: bad value for option "--ctexpire", or out of range.\n`);
        this.expires = { value: range, invert };
        return undefined;
      }
      case 'ctdir':
        if (invert) return param(cannotBeInverted('conntrack', 'ctdir'));
        if (text === 'ORIGINAL' || text === 'REPLY') this.dir = text;
        else return param(`Unknown --ctdir value "${text}"`);
        return undefined;
    }
    if ((ADDR_FIELDS as readonly string[]).includes(option)) {
      const parsed = parseAddrMask(text);
      if (typeof parsed === 'string') return param(parsed);
      this.addrs.set(option as AddrField, { value: parsed, invert });
      return undefined;
    }
    if ((PORT_FIELDS as readonly string[]).includes(option)) {
      const range = parseRange(text, 0xffff);
      if (range === undefined)
        return param(`conntrack: bad value for option "--${option}", or out of range.\n`);
      this.ports.set(option as PortField, { value: range, invert });
      return undefined;
    }
    return undefined;
  }

  finish(): IptError | undefined {
    const given =
      this.state !== undefined ||
      this.proto !== undefined ||
      this.addrs.size > 0 ||
      this.ports.size > 0 ||
      this.status !== undefined ||
      this.expires !== undefined ||
      this.dir !== undefined;
    if (!given)
      return param(
        this.name === 'state'
          ? 'state: option "--state" must be specified\n'
          : 'conntrack: At least one option is required',
      );
    return undefined;
  }

  save(): string[] {
    const words: string[] = [];
    const add = (option: string, value: string, invert: boolean): void => {
      if (invert) words.push('!');
      words.push(`--${option}`, value);
    };
    if (this.name === 'state') {
      if (this.state !== undefined) add('state', names(STATES, this.state.value, false), this.state.invert);
      return words;
    }
    if (this.state !== undefined) add('ctstate', names(STATES, this.state.value, false), this.state.invert);
    if (this.proto !== undefined) add('ctproto', `${this.proto.value}`, this.proto.invert);
    for (const field of ADDR_FIELDS) {
      const value = this.addrs.get(field);
      if (value !== undefined) add(field, hostOrNet(value.value), value.invert);
    }
    for (const field of PORT_FIELDS) {
      const value = this.ports.get(field);
      if (value !== undefined) add(field, rangeText(value.value, ':'), value.invert);
    }
    if (this.status !== undefined)
      add('ctstatus', names(STATUSES, this.status.value, false), this.status.invert);
    if (this.expires !== undefined) add('ctexpire', rangeText(this.expires.value, ':'), this.expires.invert);
    if (this.dir !== undefined) add('ctdir', this.dir, false);
    return words;
  }

  /** conntrack_dump: ` ctstate NEW`, ` ! ctstate NEW`, ` state NEW` for the alias. */
  print(): string {
    let text = '';
    const add = (label: string, value: string, invert: boolean): void => {
      text += `${invert ? ' !' : ''} ${label} ${value}`;
    };
    if (this.state !== undefined)
      add(
        this.name === 'state' ? 'state' : 'ctstate',
        names(STATES, this.state.value, false),
        this.state.invert,
      );
    if (this.proto !== undefined) add('ctproto', `${this.proto.value}`, this.proto.invert);
    for (const field of ADDR_FIELDS) {
      const value = this.addrs.get(field);
      if (value !== undefined) add(field, hostOrNet(value.value), value.invert);
    }
    for (const field of PORT_FIELDS) {
      const value = this.ports.get(field);
      if (value !== undefined) add(field, rangeText(value.value, ':'), value.invert);
    }
    if (this.status !== undefined)
      add('ctstatus', names(STATUSES, this.status.value, false), this.status.invert);
    if (this.expires !== undefined) add('ctexpire', rangeText(this.expires.value, ':'), this.expires.invert);
    if (this.dir !== undefined) add('ctdir', this.dir, false);
    return text;
  }

  compile(): Compiled {
    const exprs: Expr[] = [];
    const ct = (key: CtKey, dir?: 'original' | 'reply', mask?: number) => {
      const selector = dir === undefined ? { kind: 'ct' as const, key } : { kind: 'ct' as const, key, dir };
      return mask === undefined ? { selector } : { selector, mask };
    };
    if (this.dir !== undefined)
      exprs.push({
        kind: 'cmp',
        left: [ct('direction')],
        op: 'eq',
        right: { kind: 'number', value: this.dir === 'REPLY' ? 1 : 0 },
      });
    if (this.proto !== undefined)
      exprs.push({
        kind: 'cmp',
        left: [ct('protocol')],
        op: this.proto.invert ? 'ne' : 'eq',
        right: { kind: 'number', value: this.proto.value },
      });
    if (this.state !== undefined) {
      if (this.state.value & VIRTUAL_STATES)
        exprs.push({
          kind: 'match',
          name: 'conntrack',
          options: { name: 'conntrack', stateMask: this.state.value, invert: this.state.invert },
        });
      else
        exprs.push({
          kind: 'cmp',
          left: [ct('state', undefined, this.state.value)],
          op: this.state.invert ? 'eq' : 'ne',
          right: { kind: 'number', value: 0 },
        });
    }
    if (this.status !== undefined)
      exprs.push({
        kind: 'cmp',
        left: [ct('status', undefined, this.status.value)],
        op: this.status.invert ? 'eq' : 'ne',
        right: { kind: 'number', value: 0 },
      });
    if (this.expires !== undefined) {
      // nft_ct's expiration is in milliseconds; xt_conntrack compares whole seconds.
      const [low, high] = this.expires.value;
      exprs.push({
        kind: 'cmp',
        left: [ct('expiration')],
        op: this.expires.invert ? 'ne' : 'eq',
        right: { kind: 'range', low: low * 1000, high: high * 1000 + 999 },
      });
    }
    for (const field of ADDR_FIELDS) {
      const value = this.addrs.get(field);
      if (value === undefined) continue;
      const key = field.endsWith('src') ? 'saddr' : 'daddr';
      const mask = value.value.mask;
      exprs.push({
        kind: 'cmp',
        left: [ct(key, fieldDir(field), mask === 0xffff_ffff ? undefined : mask)],
        op: value.invert ? 'ne' : 'eq',
        right: { kind: 'number', value: value.value.addr },
      });
    }
    for (const field of PORT_FIELDS) {
      const value = this.ports.get(field);
      if (value === undefined) continue;
      const key = field.includes('src') ? 'proto-src' : 'proto-dst';
      const [low, high] = value.value;
      exprs.push({
        kind: 'cmp',
        left: [ct(key, fieldDir(field))],
        op: value.invert ? 'ne' : 'eq',
        right: low === high ? { kind: 'number', value: low } : { kind: 'range', low, high },
      });
    }
    return { exprs, xlate: this.xlate() };
  }

  /** conntrack3_mt_xlate / state_xlate as iptables 1.8.9 has them. */
  private xlate(): string {
    const parts: string[] = [];
    const neq = (invert: boolean): string => (invert ? '!= ' : '');
    if (this.dir !== undefined) parts.push(`ct direction ${this.dir === 'REPLY' ? 'reply' : 'original'}`);
    if (this.proto !== undefined)
      parts.push(
        `ct ${this.dir === 'REPLY' ? 'reply' : 'original'} protocol ${neq(this.proto.invert)}${this.proto.value}`,
      );
    if (this.state !== undefined) {
      if (this.state.value & VIRTUAL_STATES)
        parts.push(`ct status ${this.state.value & 0x100 ? 'snat' : 'dnat'}`);
      else parts.push(`ct state ${this.state.invert ? '! ' : ''}${names(STATES, this.state.value, true)}`);
    }
    if (this.status !== undefined)
      parts.push(`ct status ${this.status.invert ? '! ' : ''}${names(STATUSES, this.status.value, true)}`);
    if (this.expires !== undefined)
      parts.push(`ct expiration ${neq(this.expires.invert)}${rangeText(this.expires.value, '-')}`);
    for (const field of ADDR_FIELDS) {
      const value = this.addrs.get(field);
      if (value === undefined) continue;
      const key = field.endsWith('src') ? 'saddr' : 'daddr';
      parts.push(`ct ${fieldDir(field)} ${key} ${neq(value.invert)}${hostOrNet(value.value)}`);
    }
    for (const field of PORT_FIELDS) {
      const value = this.ports.get(field);
      if (value === undefined) continue;
      const key = field.includes('src') ? 'proto-src' : 'proto-dst';
      parts.push(`ct ${fieldDir(field)} ${key} ${neq(value.invert)}${rangeText(value.value, '-')}`);
    }
    return parts.join(' ');
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

function rangeText([low, high]: readonly [number, number], separator: string): string {
  return low === high ? `${low}` : `${low}${separator}${high}`;
}

export const conntrackMatch: MatchModule = {
  name: 'conntrack',
  create: () => new ConntrackMatch('conntrack'),
};
export const stateMatch: MatchModule = { name: 'state', create: () => new ConntrackMatch('state') };
