// spf13/pflag's command-line parsing as kubectl and the docker CLI use it: long flags (`--name value`, `--name=value`),
// clustered shorthands (`-it`, `-nkube-system`, `-o=wide`), `--` ending the flags, interspersed or not. No flag
// types beyond booleans and strings, no NoOptDefVal, no deprecated-flag warnings.

export interface FlagSpec {
  /** The long name, without dashes; the key the parsed value is stored under. */
  readonly long: string;
  readonly short?: string;
  readonly takesValue: boolean;
}

export interface ParsedFlags {
  /** String flags by long name (the last one given wins, as pflag's string flag does). */
  readonly values: ReadonlyMap<string, string>;
  /** Boolean flags set to true. */
  readonly bools: ReadonlySet<string>;
  /** Positional arguments before `--` (and, when not interspersed, everything from the first one on). */
  readonly args: readonly string[];
  /** What followed `--`; undefined when there was no `--` (cobra's ArgsLenAtDash -1). */
  readonly afterDash: readonly string[] | undefined;
}

export type FlagsResult =
  | { readonly ok: true; readonly flags: ParsedFlags }
  | { readonly ok: false; readonly message: string };

/** mirrors pflag FlagSet.parseArgs / parseLongArg / parseSingleShortArg, with pflag's error wording. */
export function parseFlags(
  argv: readonly string[],
  specs: readonly FlagSpec[],
  options: { readonly interspersed: boolean },
): FlagsResult {
  const values = new Map<string, string>();
  const bools = new Set<string>();
  const args: string[] = [];
  const set = (spec: FlagSpec, value: string | undefined): string | undefined => {
    if (spec.takesValue) {
      values.set(spec.long, value ?? '');
      return undefined;
    }
    if (value === undefined || value === 'true' || value === '1') bools.add(spec.long);
    else if (value === 'false' || value === '0') bools.delete(spec.long);
    else
      return `invalid argument "${value}" for "--${spec.long}" flag: strconv.ParseBool: parsing "${value}": invalid syntax`;
    return undefined;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') return { ok: true, flags: { values, bools, args, afterDash: argv.slice(i + 1) } };
    if (arg.length < 2 || arg[0] !== '-') {
      if (!options.interspersed) {
        args.push(...argv.slice(i));
        return { ok: true, flags: { values, bools, args, afterDash: undefined } };
      }
      args.push(arg);
      continue;
    }
    if (arg.startsWith('--')) {
      const body = arg.slice(2);
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      const spec = specs.find((candidate) => candidate.long === name);
      if (spec === undefined) return { ok: false, message: `unknown flag: --${name}` };
      let value: string | undefined = eq < 0 ? undefined : body.slice(eq + 1);
      if (spec.takesValue && value === undefined) {
        if (i + 1 >= argv.length) return { ok: false, message: `flag needs an argument: --${name}` };
        value = argv[++i];
      }
      const error = set(spec, value);
      if (error !== undefined) return { ok: false, message: error };
      continue;
    }
    let rest = arg.slice(1);
    while (rest.length > 0) {
      const c = rest[0]!;
      const spec = specs.find((candidate) => candidate.short === c);
      if (spec === undefined) return { ok: false, message: `unknown shorthand flag: '${c}' in ${arg}` };
      let value: string | undefined;
      if (rest.length > 2 && rest[1] === '=') {
        value = rest.slice(2);
        rest = '';
      } else if (spec.takesValue) {
        if (rest.length > 1) value = rest.slice(1);
        else if (i + 1 < argv.length) value = argv[++i];
        else return { ok: false, message: `flag needs an argument: '${c}' in -${c}` };
        rest = '';
      } else {
        rest = rest.slice(1);
      }
      const error = set(spec, value);
      if (error !== undefined) return { ok: false, message: error };
    }
  }
  return { ok: true, flags: { values, bools, args, afterDash: undefined } };
}

/** Quotes words so shellWords() splits them back the same (for handing an argument vector to `spawn`). */
export function shellQuote(words: readonly string[]): string {
  return words
    .map((word) => (/^[A-Za-z0-9_.,:/=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`))
    .join(' ');
}
