// GNU getopt_long as glibc runs it for tools that rely on its exact behaviour (conntrack): argument permutation, clustered short options, optional arguments, unique long-option prefixes; no POSIXLY_CORRECT, no `-W foo`, no long-only mode.
//
// Written from glibc's documented semantics (posix/getopt.c, _getopt_internal_r and
// process_long_option): the caller may move `optind` between calls (conntrack's check_type
// consumes a table name that way), and error messages quote `argv[optind - 1]`, so both the
// index bookkeeping and the in-place permutation of `argv` follow glibc exactly. The option
// string's leading ':' (silent mode, ':' for a missing argument) is assumed: nothing is printed.

/** One long option: `hasArg` 0 none, 1 required, 2 optional (`--name=value` only). */
export interface LongOption {
  readonly name: string;
  readonly hasArg: 0 | 1 | 2;
  readonly val: number;
}

/** What next() returns besides an option's value. */
export const GETOPT_END = -1;
export const GETOPT_UNKNOWN = 0x3f; // '?'
export const GETOPT_MISSING = 0x3a; // ':'

export class Getopt {
  /** Index of the next element of argv to scan (argv[0] is the program name). */
  optind = 1;
  /** The argument of the option next() just returned, or null. */
  optarg: string | null = null;
  /** The short option character next() just looked at (glibc's optopt), for "invalid option -- 'k'". */
  optopt = '';
  /** The long options; the caller may replace them between calls (conntrack merges protocol options). */
  longopts: readonly LongOption[];

  private nextchar = '';
  private firstNonopt = 1;
  private lastNonopt = 1;

  constructor(
    /** Permuted in place, as glibc does. */
    readonly argv: string[],
    private readonly optstring: string,
    longopts: readonly LongOption[],
  ) {
    this.longopts = longopts;
  }

  next(): number {
    const argv = this.argv;
    const argc = argv.length;
    this.optarg = null;
    if (this.nextchar === '') {
      // Advance to the next element, permuting non-options to the end.
      if (this.lastNonopt > this.optind) this.lastNonopt = this.optind;
      if (this.firstNonopt > this.optind) this.firstNonopt = this.optind;
      if (this.firstNonopt !== this.lastNonopt && this.lastNonopt !== this.optind) this.exchange();
      else if (this.lastNonopt !== this.optind) this.firstNonopt = this.optind;
      while (this.optind < argc && isNonOption(argv[this.optind]!)) this.optind++;
      this.lastNonopt = this.optind;

      if (this.optind !== argc && argv[this.optind] === '--') {
        this.optind++;
        if (this.firstNonopt !== this.lastNonopt && this.lastNonopt !== this.optind) this.exchange();
        else if (this.firstNonopt === this.lastNonopt) this.firstNonopt = this.optind;
        this.lastNonopt = argc;
        this.optind = argc;
      }
      if (this.optind === argc) {
        if (this.firstNonopt !== this.lastNonopt) this.optind = this.firstNonopt;
        return GETOPT_END;
      }
      const arg = argv[this.optind]!;
      if (arg.startsWith('--')) return this.longOption(arg.slice(2));
      this.nextchar = arg.slice(1);
    }

    const c = this.nextchar[0]!;
    this.optopt = c;
    this.nextchar = this.nextchar.slice(1);
    if (this.nextchar === '') this.optind++;
    const at = this.optstring.indexOf(c);
    // glibc leaves the rest of the cluster to scan: -XL reports X, then would return L.
    if (at < 0 || c === ':' || c === ';') return GETOPT_UNKNOWN;
    const code = c.charCodeAt(0);
    if (this.optstring[at + 1] !== ':') return code;
    if (this.optstring[at + 2] === ':') {
      // Optional argument: only when attached (-Lfoo).
      if (this.nextchar !== '') {
        this.optarg = this.nextchar;
        this.optind++;
      }
      this.nextchar = '';
      return code;
    }
    if (this.nextchar !== '') {
      this.optarg = this.nextchar;
      this.optind++;
    } else if (this.optind === argc) {
      this.nextchar = '';
      return GETOPT_MISSING;
    } else {
      this.optarg = argv[this.optind++]!;
    }
    this.nextchar = '';
    return code;
  }

  /** process_long_option: exact name first, else a prefix that all candidates agree on. */
  private longOption(text: string): number {
    const argv = this.argv;
    const eq = text.indexOf('=');
    const name = eq >= 0 ? text.slice(0, eq) : text;
    let found: LongOption | undefined = this.longopts.find((o) => o.name === name);
    if (found === undefined) {
      let ambiguous = false;
      for (const option of this.longopts) {
        if (!option.name.startsWith(name)) continue;
        if (found === undefined) found = option;
        else if (found.hasArg !== option.hasArg || found.val !== option.val) ambiguous = true;
      }
      if (ambiguous) {
        this.optind++;
        return GETOPT_UNKNOWN;
      }
    }
    this.optind++;
    if (found === undefined) return GETOPT_UNKNOWN;
    if (eq >= 0) {
      if (found.hasArg === 0) return GETOPT_UNKNOWN;
      this.optarg = text.slice(eq + 1);
    } else if (found.hasArg === 1) {
      if (this.optind >= argv.length) return GETOPT_MISSING;
      this.optarg = argv[this.optind++]!;
    }
    return found.val;
  }

  /** Moves the non-options skipped so far after the options that followed them. */
  private exchange(): void {
    const argv = this.argv;
    const nonopts = argv.slice(this.firstNonopt, this.lastNonopt);
    const opts = argv.slice(this.lastNonopt, this.optind);
    argv.splice(this.firstNonopt, this.optind - this.firstNonopt, ...opts, ...nonopts);
    this.firstNonopt += this.optind - this.lastNonopt;
    this.lastNonopt = this.optind;
  }
}

function isNonOption(arg: string): boolean {
  return arg[0] !== '-' || arg.length === 1;
}
