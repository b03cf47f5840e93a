// The multiport match (libxt_multiport.c rev 1): up to 15 ports or ranges on the source, destination or either
// port; needs -p tcp/udp/udplite/sctp/dccp. Source or destination lists are native set lookups for the engine.

import type { Constant, Expr, PayloadField, XtMatchOptions } from '../ir.ts';
import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  cannotCombine,
  type MatchModule,
  type OptionDef,
  type ParseContext,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { parsePortRange, portName, protocolName } from './names.ts';

/** XT_MULTI_PORTS. */
const MAX_PORTS = 15;
const PORT_PROTOS = [6, 17, 136, 132, 33];

type MultiportOptions = Extract<XtMatchOptions, { name: 'multiport' }>;

/** multiport_mt for --ports (and the others): a port in a listed range, xor invert. */
export function multiportMatches(options: MultiportOptions, sport: number, dport: number): boolean {
  const inRange = (port: number): boolean =>
    options.ranges.some(([low, high]) => port >= low && port <= high);
  let hit: boolean;
  switch (options.side) {
    case 'source':
      hit = inRange(sport);
      break;
    case 'destination':
      hit = inRange(dport);
      break;
    case 'either':
      hit = inRange(sport) || inRange(dport);
      break;
  }
  return hit !== options.invert;
}

export class MultiportMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'multiport';
  readonly options: readonly OptionDef[] = [
    { name: 'source-ports', arg: true, invert: true },
    { name: 'sports', arg: true, invert: true },
    { name: 'destination-ports', arg: true, invert: true },
    { name: 'dports', arg: true, invert: true },
    { name: 'ports', arg: true, invert: true },
  ];
  side: 'source' | 'destination' | 'either' | undefined;
  ranges: [number, number][] = [];
  invert = false;
  private proto = 'tcp';
  private text = '';

  parse(option: string, args: readonly string[], invert: boolean, ctx: ParseContext): IptError | undefined {
    if (this.side !== undefined) {
      // x6's exclusions, named in definition order: source-ports, destination-ports, ports.
      const order = ['source', 'destination', 'either'] as const;
      const side: (typeof order)[number] = option.startsWith('s')
        ? 'source'
        : option.startsWith('d')
          ? 'destination'
          : 'either';
      const names = { source: 'source-ports', destination: 'destination-ports', either: 'ports' } as const;
      const [first, second] =
        order.indexOf(side) < order.indexOf(this.side) ? [side, this.side] : [this.side, side];
      return param(cannotCombine('multiport', names[first], names[second]));
    }
    const proto = protocolName(ctx.proto);
    if (!PORT_PROTOS.includes(ctx.proto) || ctx.protoInvert || proto === undefined)
      return param("multiport needs `-p tcp', `-p udp', `-p udplite', `-p sctp' or `-p dccp'");
    this.proto = proto;
    this.side = option.startsWith('s') ? 'source' : option.startsWith('d') ? 'destination' : 'either';
    this.invert = invert;
    this.text = args[0]!;
    let count = 0;
    for (const word of this.text.split(',')) {
      const range = parsePortRange(word, proto);
      if (typeof range === 'string') return param(range);
      if (range[0] > range[1]) return param('invalid portrange specified');
      count += range[0] === range[1] ? 1 : 2;
      if (count > MAX_PORTS) return param('too many ports specified');
      this.ranges.push(range);
    }
    return undefined;
  }

  finish(): IptError | undefined {
    return this.side === undefined ? param('multiport expection an option') : undefined;
  }

  private optionName(): string {
    return this.side === 'source' ? 'sports' : this.side === 'destination' ? 'dports' : 'ports';
  }

  private list(numeric: boolean, separator: string): string {
    return this.ranges
      .map(([low, high]) =>
        low === high
          ? portName(low, this.proto, numeric)
          : `${portName(low, this.proto, numeric)}${separator}${portName(high, this.proto, numeric)}`,
      )
      .join(',');
  }

  save(): string[] {
    return [...(this.invert ? ['!'] : []), `--${this.optionName()}`, this.list(true, ':')];
  }

  /** multiport_print_v1: ` multiport dports 80,443`, ` multiport sports  !53`. */
  print(numeric: boolean): string {
    return ` multiport ${this.optionName()} ${this.invert ? ' !' : ''}${this.list(numeric, ':')}`;
  }

  private field(side: 'sport' | 'dport'): PayloadField {
    if (this.proto === 'tcp' || this.proto === 'udp') return `${this.proto} ${side}`;
    return `th ${side}`;
  }

  compile(): Compiled {
    const elements = this.ranges.map(([low, high]) => ({
      key: (low === high ? { kind: 'number', value: low } : { kind: 'range', low, high }) as Constant,
      data: undefined,
    }));
    let exprs: Expr[];
    if (this.side === 'either')
      exprs = [
        {
          kind: 'match',
          name: 'multiport',
          options: { name: 'multiport', side: 'either', ranges: this.ranges, invert: this.invert },
        },
      ];
    else
      exprs = [
        {
          kind: 'lookup',
          left: [
            { selector: { kind: 'payload', field: this.field(this.side === 'source' ? 'sport' : 'dport') } },
          ],
          negate: this.invert,
          set: { kind: 'anonymous', keyType: ['inet_service'], elements },
        },
      ];
    return { exprs, xlate: this.xlate() };
  }

  /** multiport_xlate: one port bare, several in braces; --ports as a concatenation with the other side open. */
  private xlate(): string {
    const neq = this.invert ? '!= ' : '';
    const item = ([low, high]: readonly [number, number]): string =>
      low === high ? `${low}` : `${low}-${high}`;
    if (this.side === 'either') {
      // iptables 1.8.9 lists every stored port on its own here (a range's ends as two ports) and drops `!`.
      const ports = this.ranges.flatMap(([low, high]) => (low === high ? [low] : [low, high]));
      const pairs = ports.flatMap((port) => [`0-65535 . ${port}`, `${port} . 0-65535`]);
      return `${this.proto} sport . ${this.proto} dport { ${pairs.join(', ')} }`;
    }
    const field = `${this.proto} ${this.side === 'source' ? 'sport' : 'dport'}`;
    if (this.ranges.length === 1) return `${field} ${neq}${item(this.ranges[0]!)}`;
    return `${field} ${neq}{ ${this.ranges.map(item).join(', ')} }`;
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const multiportMatch: MatchModule = { name: 'multiport', create: () => new MultiportMatch() };
