// The u32 match (libxt_u32.c): `[!] --u32 TESTS`, each test LOCATION=VALUES where a location reads 32 bits at an
// offset and applies &, <<, >> and @ (move on by the value read); an xt match nft lists as such.

import type { U32Step, U32Test } from '../xt/ext-options.ts';
import { type IptError, param } from './errors.ts';
import type { Compiled, MatchModule, OptionDef, Usage, XtMatch } from './extension.ts';

/** XT_U32_MAXSIZE: tests, location steps and value ranges per test. */
const MAX_SIZE = 10;

const OPS: readonly (readonly [string, U32Step['op']])[] = [
  ['&', 'and'],
  ['<<', 'shl'],
  ['>>', 'shr'],
  ['@', 'at'],
];
const OP_TEXT: Readonly<Record<U32Step['op'], string>> = { and: '&', shl: '<<', shr: '>>', at: '@' };

/** u32_parse, on a cursor over the argument with blanks skipped. */
export function parseU32(text: string): U32Test[] | IptError {
  let at = 0;
  const skip = () => {
    while (at < text.length && /\s/.test(text[at]!)) at++;
  };
  const number = (): number | IptError => {
    skip();
    const match = /^(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)/.exec(text.slice(at));
    const value =
      match === null
        ? Number.NaN
        : Number(
            match[1]!.startsWith('0') && !/^0[xX]/.test(match[1]!) && match[1]!.length > 1
              ? Number.parseInt(match[1]!, 8)
              : match[1],
          );
    if (match === null || !(value <= 0xffff_ffff))
      return param(`u32: at char ${at}: not a number or out of range`);
    at += match[0].length;
    return value;
  };
  const tests: U32Test[] = [];
  for (;;) {
    skip();
    if (at >= text.length) return param('u32: abrupt end of input after location specifier');
    if (text[at] === '=') return param(`u32: at char ${at}: location spec missing`);
    const start = number();
    if (typeof start !== 'number') return start;
    const steps: U32Step[] = [];
    for (;;) {
      skip();
      if (at >= text.length) return param('u32: abrupt end of input after location specifier');
      if (text[at] === '=') {
        at++;
        break;
      }
      const op = OPS.find(([symbol]) => text.startsWith(symbol, at));
      if (op === undefined) return param(`u32: at char ${at}: operator expected`);
      at += op[0].length;
      if (steps.length + 1 >= MAX_SIZE) return param(`u32: at char ${at}: too many operators`);
      const value = number();
      if (typeof value !== 'number') return value;
      steps.push({ op: op[1], value });
    }
    const ranges: [number, number][] = [];
    for (;;) {
      skip();
      if (at >= text.length || text.startsWith('&&', at)) {
        if (ranges.length === 0) return param('u32: test ended with no value specified');
        break;
      }
      if (ranges.length >= MAX_SIZE) return param(`u32: at char ${at}: too many ranges`);
      const low = number();
      if (typeof low !== 'number') return low;
      let high = low;
      skip();
      if (text[at] === ':') {
        at++;
        const value = number();
        if (typeof value !== 'number') return value;
        high = value;
      }
      ranges.push([low, high]);
      skip();
      if (text[at] === ',') at++;
    }
    tests.push({ start, steps, ranges });
    if (at >= text.length) return tests;
    at += 2;
    if (tests.length >= MAX_SIZE) return param(`u32: at char ${at}: too many "&&"s`);
  }
}

/** u32_dump: every number in hex, tests joined by `&&`. */
export function formatU32(tests: readonly U32Test[]): string {
  const hex = (value: number) => `0x${value.toString(16)}`;
  return tests
    .map((test) => {
      let text = hex(test.start);
      for (const step of test.steps) text += `${OP_TEXT[step.op]}${hex(step.value)}`;
      const values = test.ranges.map(([low, high]) => (low === high ? hex(low) : `${hex(low)}:${hex(high)}`));
      return `${text}=${values.join(',')}`;
    })
    .join('&&');
}

export class U32Match implements XtMatch {
  readonly kind = 'match';
  readonly name = 'u32';
  readonly options: readonly OptionDef[] = [{ name: 'u32', arg: true, invert: true }];
  tests: readonly U32Test[] = [];
  invert = false;
  given = false;

  parse(_option: string, args: readonly string[], invert: boolean): IptError | undefined {
    const parsed = parseU32(args[0]!);
    if (!Array.isArray(parsed)) return parsed;
    this.tests = parsed;
    this.invert = invert;
    this.given = true;
    return undefined;
  }

  finish(): IptError | undefined {
    return this.given ? undefined : param('u32: option "--u32" must be specified\n');
  }

  save(): string[] {
    return [...(this.invert ? ['!'] : []), '--u32', `"${formatU32(this.tests)}"`];
  }

  print(): string {
    return ` u32 ${this.invert ? '! ' : ''}"${formatU32(this.tests)}"`;
  }

  compile(): Compiled {
    return {
      exprs: [
        { kind: 'match', name: 'u32', options: { name: 'u32', tests: this.tests, invert: this.invert } },
      ],
      xlate: 'xt match u32',
    };
  }

  usage(): Usage | undefined {
    return undefined;
  }
}

export const u32Match: MatchModule = { name: 'u32', create: () => new U32Match() };
