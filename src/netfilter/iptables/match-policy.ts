// The policy match (libxt_policy.c): `--dir in|out --pol none|ipsec` with IPsec policy elements (--strict,
// --reqid, --spi, --proto, --mode, --tunnel-src/-dst, --next). packetlab has no IPsec: no packet has a security
// path, so `--pol none` matches every packet and `--pol ipsec` none (xt_policy.c: policy_mt with no sec_path).

import { formatIpv4 } from '../../wire/address.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotBeInverted,
  type MatchModule,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { maskLength, parseAddrMask, parseDecimal, parseProtocol, parseUnsigned } from './names.ts';

interface Element {
  reqid?: { value: number; invert: boolean };
  spi?: { value: number; invert: boolean };
  proto?: { value: number; invert: boolean };
  mode?: { value: 'tunnel' | 'transport'; invert: boolean };
  dst?: { addr: number; mask: number; invert: boolean };
  src?: { addr: number; mask: number; invert: boolean };
}

const PROTO_NAMES: Readonly<Record<number, string>> = { 50: 'esp', 51: 'ah', 108: 'ipcomp' };

export class PolicyMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'policy';
  readonly options: readonly OptionDef[] = [
    { name: 'dir', arg: true, invert: false },
    { name: 'pol', arg: true, invert: false },
    { name: 'strict', arg: false, invert: false },
    { name: 'reqid', arg: true, invert: true },
    { name: 'spi', arg: true, invert: true },
    { name: 'tunnel-src', arg: true, invert: true },
    { name: 'tunnel-dst', arg: true, invert: true },
    { name: 'proto', arg: true, invert: true },
    { name: 'mode', arg: true, invert: true },
    { name: 'next', arg: false, invert: false },
  ];
  dir: 'in' | 'out' | undefined;
  ipsec = true;
  strict = false;
  readonly elements: Element[] = [{}];

  private get current(): Element {
    return this.elements[this.elements.length - 1]!;
  }

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0] ?? '';
    switch (option) {
      case 'dir':
        if (text !== 'in' && text !== 'out') return param(`policy_match: invalid dir "${text}"`);
        this.dir = text;
        return undefined;
      case 'pol':
        if (invert) return param(cannotBeInverted('policy', 'pol'));
        if (text !== 'none' && text !== 'ipsec') return param(`policy match: invalid policy "${text}"`);
        this.ipsec = text === 'ipsec';
        return undefined;
      case 'strict':
        this.strict = true;
        return undefined;
      case 'reqid':
      case 'spi': {
        const value = parseUnsigned(text);
        if (value === undefined)
          return param(`policy: bad value for option "--${option}", or out of range (0-4294967295).\n`);
        this.current[option] = { value, invert };
        return undefined;
      }
      case 'proto': {
        const value = parseProtocol(text) ?? parseDecimal(text, 255);
        if (value === undefined) return param(`policy match: protocol must be ah/esp/ipcomp`);
        if (PROTO_NAMES[value] === undefined) return param('policy match: protocol must be ah/esp/ipcomp');
        this.current.proto = { value, invert };
        return undefined;
      }
      case 'mode':
        if (text !== 'tunnel' && text !== 'transport') return param(`policy match: invalid mode "${text}"`);
        this.current.mode = { value: text, invert };
        return undefined;
      case 'tunnel-src':
      case 'tunnel-dst': {
        const parsed = parseAddrMask(text);
        if (typeof parsed === 'string') return param(parsed);
        this.current[option === 'tunnel-src' ? 'src' : 'dst'] = { ...parsed, invert };
        return undefined;
      }
      case 'next':
        this.elements.push({});
        return undefined;
    }
    return undefined;
  }

  finish(): IptError | undefined {
    if (this.elements.length > 1 && !this.strict)
      return param('policy: option "--next" also requires "--strict".\n');
    if (this.dir === undefined) return param('policy match: neither --dir in nor --dir out specified');
    for (const element of this.elements)
      if ((element.src !== undefined || element.dst !== undefined) && element.mode?.value !== 'tunnel')
        return param('policy match: --tunnel-src/--tunnel-dst is only valid in tunnel mode');
    if (!this.ipsec) {
      if (this.strict) return param('policy match: policy none but --strict given');
      if (this.elements.some((element) => Object.keys(element).length > 0))
        return param('policy match: policy none but policy given');
    }
    return undefined;
  }

  private hasElements(): boolean {
    return this.elements.some((element) => Object.keys(element).length > 0);
  }

  private entryWords(element: Element, prefix: string, numeric: boolean): string[] {
    const words: string[] = [];
    const put = (invert: boolean, label: string, value: string) => {
      if (invert) words.push('!');
      words.push(`${prefix}${label}`, value);
    };
    if (element.reqid) put(element.reqid.invert, 'reqid', `${element.reqid.value}`);
    if (element.spi) put(element.spi.invert, 'spi', `0x${element.spi.value.toString(16)}`);
    if (element.proto)
      put(
        element.proto.invert,
        'proto',
        numeric ? `${element.proto.value}` : PROTO_NAMES[element.proto.value]!,
      );
    if (element.mode) put(element.mode.invert, 'mode', element.mode.value);
    for (const [label, sel] of [
      ['tunnel-dst', element.dst],
      ['tunnel-src', element.src],
    ] as const) {
      if (sel === undefined) continue;
      const len = maskLength(sel.mask);
      put(sel.invert, label, `${formatIpv4(sel.addr)}${len === 32 ? '' : `/${len}`}`);
    }
    return words;
  }

  save(): string[] {
    const words = ['--dir', this.dir ?? 'in', '--pol', this.ipsec ? 'ipsec' : 'none'];
    if (this.strict) words.push('--strict');
    this.elements.forEach((element, i) => {
      if (i > 0) words.push('--next');
      words.push(...this.entryWords(element, '--', false));
    });
    return words;
  }

  print(numeric: boolean): string {
    const words = ['policy', 'match', 'dir', this.dir ?? 'in', 'pol', this.ipsec ? 'ipsec' : 'none'];
    if (this.strict) words.push('strict');
    const several = this.elements.length > 1;
    this.elements.forEach((element, i) => {
      if (several) words.push(`[${i}]`);
      words.push(...this.entryWords(element, '', numeric));
    });
    return ` ${words.join(' ')}`;
  }

  compile(): Compiled {
    // policy_xlate: only --dir in translates.
    const xlate =
      this.dir === 'out'
        ? 'xt match policy'
        : !this.ipsec
          ? 'meta secpath missing'
          : !this.hasElements() && !this.strict
            ? 'meta secpath exists'
            : 'xt match policy';
    return {
      exprs: [{ kind: 'match', name: 'policy', options: { name: 'policy', ipsec: this.ipsec } }],
      xlate,
    };
  }

  /** policy_mt_check: --dir in is for PREROUTING, INPUT and FORWARD, --dir out for FORWARD, OUTPUT, POSTROUTING. */
  usage(): Usage | undefined {
    return this.dir === 'out'
      ? { hooks: ['forward', 'output', 'postrouting'] }
      : { hooks: ['prerouting', 'input', 'forward'] };
  }
}

export const policyMatch: MatchModule = { name: 'policy', create: () => new PolicyMatch() };
