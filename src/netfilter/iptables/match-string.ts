// The string match (libxt_string.c rev 1): `--algo bm|kmp` and `[!] --string TEXT` or `[!] --hex-string
// "|47 45|T"`, searched between --from and --to (offsets from the IP header), --icase; an xt match in nft.

import { type IptError, param } from './errors.ts';
import {
  type Compiled,
  type MatchModule,
  mustBeSpecified,
  type OptionDef,
  type Usage,
  type XtMatch,
} from './extension.ts';
import { parseDecimal } from './names.ts';

/** XT_STRING_MAX_PATTERN_SIZE. */
const MAX_PATTERN = 128;
const ALGOS = ['bm', 'kmp'];

/** parse_hex_string: plain characters, `|hex bytes|` blocks (blanks allowed inside), `\` before a literal. */
function parseHex(text: string): number[] | IptError {
  if (text.length === 0) return param('STRING must contain at least one char');
  const out: number[] = [];
  let hex = false;
  let literal = false;
  let i = 0;
  const bytes = new TextEncoder().encode(text);
  const at = (n: number) => String.fromCharCode(bytes[n] ?? 0);
  while (i < bytes.length) {
    const c = at(i);
    if (c === '\\' && !hex) literal = true;
    else if (c === '\\') return param('Cannot include literals in hex data');
    else if (c === '|') {
      if (hex) hex = false;
      else {
        hex = true;
        while (at(i + 1) === ' ') i++;
      }
      if (i + 1 >= bytes.length) break;
      i++;
      continue;
    }
    if (literal) {
      if (i + 1 >= bytes.length) return param('Bad literal placement at end of string');
      out.push(bytes[i + 1]!);
      i += 2;
      literal = false;
    } else if (hex) {
      if (i + 1 >= bytes.length) return param('Odd number of hex digits');
      if (i + 2 >= bytes.length) return param('Invalid hex block');
      if (!/[0-9a-fA-F]/.test(at(i))) return param(`Invalid hex char '${at(i)}'`);
      if (!/[0-9a-fA-F]/.test(at(i + 1))) return param(`Invalid hex char '${at(i + 1)}'`);
      out.push(Number.parseInt(`${at(i)}${at(i + 1)}`, 16));
      i += at(i + 2) === ' ' ? 3 : 2;
    } else {
      out.push(bytes[i]!);
      i++;
    }
    if (out.length > MAX_PATTERN) return param(`STRING too long "${text}"`);
  }
  return out;
}

export class StringMatch implements XtMatch {
  readonly kind = 'match';
  readonly name = 'string';
  readonly options: readonly OptionDef[] = [
    { name: 'from', arg: true, invert: false },
    { name: 'to', arg: true, invert: false },
    { name: 'algo', arg: true, invert: false },
    { name: 'string', arg: true, invert: true },
    { name: 'hex-string', arg: true, invert: true },
    { name: 'icase', arg: false, invert: false },
  ];
  algo: string | undefined;
  pattern: number[] | undefined;
  from = 0;
  to = 0xffff;
  icase = false;
  invert = false;

  parse(option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const text = args[0] ?? '';
    switch (option) {
      case 'from':
      case 'to': {
        const value = parseDecimal(text, 0xffff);
        if (value === undefined)
          return param(`string: bad value for option "--${option}", or out of range (0-65535).\n`);
        if (option === 'from') this.from = value;
        else this.to = value;
        return undefined;
      }
      case 'algo':
        this.algo = text;
        return undefined;
      case 'string': {
        const bytes = [...new TextEncoder().encode(text)];
        if (bytes.length > MAX_PATTERN) return param(`STRING too long "${text}"`);
        this.pattern = bytes;
        this.invert = invert;
        return undefined;
      }
      case 'hex-string': {
        const bytes = parseHex(text);
        if (!Array.isArray(bytes)) return bytes;
        this.pattern = bytes;
        this.invert = invert;
        return undefined;
      }
      case 'icase':
        this.icase = true;
        return undefined;
    }
    return undefined;
  }

  finish(): IptError | undefined {
    if (this.algo === undefined) return param(mustBeSpecified('string', 'algo'));
    if (this.pattern === undefined)
      return param("STRING match: You must specify `--string' or `--hex-string'");
    return undefined;
  }

  /** is_hex_string: any byte that is not printable ASCII makes the pattern print as hex. */
  private isHex(): boolean {
    return (this.pattern ?? []).some((byte) => byte < 0x20 || byte > 0x7e);
  }

  private patternText(): string {
    const pattern = this.pattern ?? [];
    if (this.isHex()) return `"|${pattern.map((byte) => byte.toString(16).padStart(2, '0')).join('')}|"`;
    let text = '"';
    for (const byte of pattern) {
      const c = String.fromCharCode(byte);
      if (c === '"' || c === '\\') text += '\\';
      text += c;
    }
    return `${text}"`;
  }

  save(): string[] {
    const words = [
      ...(this.invert ? ['!'] : []),
      this.isHex() ? '--hex-string' : '--string',
      this.patternText(),
    ];
    words.push('--algo', this.algo ?? '');
    if (this.from !== 0) words.push('--from', `${this.from}`);
    if (this.to !== 0xffff) words.push('--to', `${this.to}`);
    if (this.icase) words.push('--icase');
    return words;
  }

  print(): string {
    let text = ` STRING match ${this.invert ? '!' : ''} ${this.patternText()} ALGO name ${this.algo}`;
    if (this.from !== 0) text += ` FROM ${this.from}`;
    if (this.to !== 0xffff) text += ` TO ${this.to}`;
    if (this.icase) text += ' ICASE';
    return text;
  }

  compile(): Compiled {
    return {
      exprs: [
        {
          kind: 'match',
          name: 'string',
          options: {
            name: 'string',
            pattern: this.pattern ?? [],
            from: this.from,
            to: this.to,
            icase: this.icase,
            invert: this.invert,
          },
        },
      ],
      xlate: 'xt match string',
    };
  }

  /** string_mt_check: an empty pattern or --from past --to is EINVAL; an unknown algorithm ENOENT. */
  usage(): Usage | undefined {
    if ((this.pattern ?? []).length === 0 || this.from > this.to) return { never: true };
    // textsearch_prepare finds no module for the algorithm.
    if (!ALGOS.includes(this.algo ?? '')) return { never: true, errno: 'ENOENT' };
    return undefined;
  }
}

export const stringMatch: MatchModule = { name: 'string', create: () => new StringMatch() };
