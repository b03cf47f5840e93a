// The sctp match (libxt_sctp.c): `[!] --sport`/`--dport` ranges and `--chunk-types all|any|only CHUNK[:FLAGS],...`;
// nft lists it through its xlate (sctp sport/dport, sctp chunk ... exists/missing) where one exists.

import type { RangeTest, SctpFlagTest } from '../xt/ext-options.ts';
import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, ParseContext, Usage, XtMatch } from './extension.ts';
import { parseDecimal } from './names.ts';
import { portRangeText, printPortRanges, savePortRanges } from './port-ranges.ts';

/** sctp_chunk_names: iptables' names, chunk types and the flag letters each takes (high bit first). */
const CHUNKS: readonly (readonly [string, number, string])[] = [
  ['DATA', 0, '----IUBE'],
  ['INIT', 1, '--------'],
  ['INIT_ACK', 2, '--------'],
  ['SACK', 3, '--------'],
  ['HEARTBEAT', 4, '--------'],
  ['HEARTBEAT_ACK', 5, '--------'],
  ['ABORT', 6, '-------T'],
  ['SHUTDOWN', 7, '--------'],
  ['SHUTDOWN_ACK', 8, '--------'],
  ['ERROR', 9, '--------'],
  ['COOKIE_ECHO', 10, '--------'],
  ['COOKIE_ACK', 11, '--------'],
  ['ECN_ECNE', 12, '--------'],
  ['ECN_CWR', 13, '--------'],
  ['SHUTDOWN_COMPLETE', 14, '-------T'],
  ['ASCONF', 193, '--------'],
  ['ASCONF_ACK', 128, '--------'],
  ['FORWARD_TSN', 192, '--------'],
];

/** nft's sctp chunk names in the order its xlate lists them. */
const NFT_CHUNKS: readonly (readonly [string, number])[] = [
  ['data', 0],
  ['init', 1],
  ['init-ack', 2],
  ['sack', 3],
  ['heartbeat', 4],
  ['heartbeat-ack', 5],
  ['abort', 6],
  ['shutdown', 7],
  ['shutdown-ack', 8],
  ['error', 9],
  ['cookie-echo', 10],
  ['cookie-ack', 11],
  ['ecne', 12],
  ['cwr', 13],
  ['shutdown-complete', 14],
  ['i-data', 64],
  ['re-config', 130],
  ['pad', 132],
  ['asconf', 193],
  ['asconf-ack', 128],
  ['forward-tsn', 192],
  ['i-forward-tsn', 194],
];

type ChunkMatch = 'all' | 'any' | 'only';

/** parse_sctp_ports: numbers only (no service is listed for sctp), `A:B` with A <= B. */
function parsePorts(text: string): [number, number] | string {
  const colon = text.indexOf(':');
  const one = (word: string, missing: number): number | string => {
    if (word === '') return missing;
    const port = parseDecimal(word, 0xffff);
    return port === undefined ? `invalid port/service \`${word}' specified` : port;
  };
  if (colon < 0) {
    const port = one(text, 0);
    return typeof port === 'string' ? port : [port, port];
  }
  const low = one(text.slice(0, colon), 0);
  if (typeof low === 'string') return low;
  const high = one(text.slice(colon + 1), 0xffff);
  if (typeof high === 'string') return high;
  if (low > high) return 'invalid portrange (min > max)';
  return [low, high];
}

export class SctpMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'sctp';
  readonly options: readonly OptionDef[] = [
    { name: 'source-port', arg: true, invert: true },
    { name: 'sport', arg: true, invert: true },
    { name: 'destination-port', arg: true, invert: true },
    { name: 'dport', arg: true, invert: true },
    {
      name: 'chunk-types',
      arg: 'two',
      invert: true,
      missingSecond: '--chunk-types requires two args',
    },
  ];
  sport: RangeTest | undefined;
  dport: RangeTest | undefined;
  chunkMatch: ChunkMatch | undefined;
  chunkInvert = false;
  /** The chunk map as a set of types; `all` when ALL was given (every one of the 256). */
  readonly types = new Set<number>();
  readonly flags: SctpFlagTest[] = [];

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    if (option === 'chunk-types') return this.parseChunks(args[0]!, args[1]!, invert);
    const ports = parsePorts(args[0]!);
    if (typeof ports === 'string') return param(ports);
    const range = { low: ports[0], high: ports[1], invert };
    if (option === 'sport' || option === 'source-port') this.sport = range;
    else this.dport = range;
    return undefined;
  }

  private parseChunks(kind: string, list: string, invert: boolean): IptError | undefined {
    const match = kind.toLowerCase();
    if (match !== 'all' && match !== 'any' && match !== 'only')
      return param('Match type has to be one of "ALL", "ANY" or "ONLY"');
    this.chunkMatch = match;
    this.chunkInvert = invert;
    this.types.clear();
    this.flags.length = 0;
    if (list.toUpperCase() === 'ALL') {
      for (let type = 0; type < 256; type++) this.types.add(type);
      return undefined;
    }
    if (list.toUpperCase() === 'NONE') return undefined;
    for (const item of list.split(',')) {
      if (item === '') continue;
      const colon = item.indexOf(':');
      const name = colon < 0 ? item : item.slice(0, colon);
      const chunk = CHUNKS.find(([candidate]) => candidate === name.toUpperCase());
      if (chunk === undefined) return param(`Unknown sctp chunk \`${name}'`);
      this.types.add(chunk[1]);
      if (colon < 0) continue;
      let flags = 0;
      let mask = 0;
      for (const letter of item.slice(colon + 1)) {
        const at = chunk[2].indexOf(letter.toUpperCase());
        if (at < 0 || letter === '-') return param(`Invalid flags for chunk type ${CHUNKS.indexOf(chunk)}`);
        const bit = 1 << (7 - at);
        mask |= bit;
        if (letter === letter.toUpperCase()) flags |= bit;
      }
      this.flags.push({ type: chunk[1], flags, mask });
    }
    return undefined;
  }

  finish(): IptError | undefined {
    return undefined;
  }

  private allTypes(): boolean {
    return this.types.size === 256;
  }

  private sortedTypes(): number[] {
    return [...this.types].sort((a, b) => a - b);
  }

  /** print_chunk_flags: the chunk's flag letters, upper case when set, lower when clear, high bit first. */
  private flagText(type: number): string {
    const test = this.flags.find((flag) => flag.type === type);
    if (test === undefined) return '';
    const letters = CHUNKS.find(([, candidate]) => candidate === type)![2];
    let text = ':';
    for (let bit = 7; bit >= 0; bit--) {
      if (!(test.mask & (1 << bit))) continue;
      const letter = letters[7 - bit]!;
      text += test.flags & (1 << bit) ? letter : letter.toLowerCase();
    }
    return text;
  }

  private chunkWords(numeric: boolean): string {
    if (this.types.size === 0) return 'NONE';
    if (this.allTypes()) return 'ALL';
    return this.sortedTypes()
      .map((type) => {
        const name = numeric
          ? `0x${type.toString(16).toUpperCase().padStart(4, '0')}`
          : CHUNKS.find(([, candidate]) => candidate === type)![0];
        return `${name}${this.flagText(type)}`;
      })
      .join(',');
  }

  save(): string[] {
    const words = savePortRanges(this.sport, this.dport);
    if (this.chunkMatch !== undefined) {
      if (this.chunkInvert) words.push('!');
      words.push('--chunk-types', this.chunkMatch, this.chunkWords(false));
    }
    return words;
  }

  print(numeric: boolean): string {
    let text = ` sctp${printPortRanges(this.sport, this.dport)}`;
    if (this.chunkMatch !== undefined)
      text += `${this.chunkInvert ? ' !' : ''} ${this.chunkMatch} ${this.chunkWords(numeric)}`;
    return text;
  }

  /** sctp_xlate: ports, then the chunk map for all/only without `any`; 0 (no translation) otherwise. */
  private xlate(): string | undefined {
    if (this.sport === undefined && this.dport === undefined && this.chunkMatch === undefined)
      return undefined;
    const parts: string[] = [];
    for (const [label, range] of [
      ['sport', this.sport],
      ['dport', this.dport],
    ] as const) {
      if (range === undefined) continue;
      parts.push(`sctp ${label}${range.invert ? ' !=' : ''} ${portRangeText(range, '-')}`);
    }
    if (this.chunkMatch !== undefined) {
      if (this.chunkMatch === 'any' || this.chunkInvert) return undefined;
      for (const [name, type] of NFT_CHUNKS) {
        const wanted = this.types.has(type);
        if (!wanted && this.chunkMatch === 'all') continue;
        const test = this.flags.find((flag) => flag.type === type);
        if (wanted && test !== undefined)
          parts.push(
            `sctp chunk ${name} flags & 0x${test.mask.toString(16)} == 0x${test.flags.toString(16)}`,
          );
        else parts.push(`sctp chunk ${name} ${wanted ? 'exists' : 'missing'}`);
      }
    }
    return parts.join(' ');
  }

  compile(): Compiled {
    const chunks =
      this.chunkMatch === undefined
        ? undefined
        : { match: this.chunkMatch, types: this.sortedTypes(), flags: [...this.flags] };
    return {
      exprs: [
        {
          kind: 'match',
          name: 'sctp',
          options: { name: 'sctp', sport: this.sport, dport: this.dport, chunks },
        },
      ],
      xlate: this.xlate() ?? 'xt match sctp',
    };
  }

  /** xt_check_match: the match is for `-p sctp` only. */
  usage(ctx: ParseContext): Usage | undefined {
    return ctx.proto !== 132 || ctx.protoInvert ? { never: true } : undefined;
  }
}

export const sctpMatch: MatchModule = { name: 'sctp', create: () => new SctpMatch() };
