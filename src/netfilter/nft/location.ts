// Where a token or an expression sits in nft input, and nft's error record format (erec.c: erec_print): the
// `FILE:LINE:FIRST-LAST: Error: MESSAGE` line, the source line and a marker line of `^` (and `~` for a
// second location); command-line input has no `FILE:LINE:COL` prefix. Multi-line locations are clipped to their first line.

/** A span of one input line; columns are 1-based and inclusive, as nft prints them. */
export interface Location {
  /** The line number nft prints. */
  readonly line: number;
  readonly first: number;
  readonly last: number;
  /** The 0-based index of the input line shown under the message (differs from line - 1 at end of file). */
  readonly textLine: number;
  /** The file an `include` brought the token from; undefined for the input itself. */
  readonly source?: Source | undefined;
}

/** One error, as nft's struct error_record holds it: a message and up to two locations (`~` then `^`). */
export interface ErrorRecord {
  readonly message: string;
  readonly loc: Location;
  /** Underlined with `~`, such as the statement a misplaced one follows. */
  readonly secondary?: Location;
}

export function errorAt(loc: Location, message: string, secondary?: Location): ErrorRecord {
  return secondary === undefined ? { message, loc } : { message, loc, secondary };
}

/** A location covering `from` through `to` (both on one line; a later line keeps `from`'s line). */
export function span(from: Location, to: Location): Location {
  if (to.line !== from.line || to.source !== from.source) return from;
  const joined = {
    line: from.line,
    first: from.first,
    last: Math.max(from.last, to.last),
    textLine: from.textLine,
  };
  return from.source === undefined ? joined : { ...joined, source: from.source };
}

/** The source of a parse: its text split in lines, and the name nft shows (undefined for command-line input). */
export class Source {
  readonly lines: readonly string[];
  constructor(
    readonly text: string,
    readonly name: string | undefined,
    /** For a file `include` read: the input and the include statement that brought it in. */
    readonly includedFrom?: { readonly source: Source; readonly loc: Location },
  ) {
    this.lines = text.split('\n');
  }
}

function marker(text: string, ranges: readonly { loc: Location; mark: string }[]): string {
  let end = 0;
  for (const range of ranges) end = Math.max(end, range.loc.last);
  let out = '';
  for (let col = 1; col <= end; col++) {
    const range = ranges.find((r) => col >= r.loc.first && col <= r.loc.last);
    if (range !== undefined) out += range.mark;
    else out += text[col - 1] === '\t' ? '\t' : ' ';
  }
  return out;
}

/** Formats an error record exactly as nft prints it on stderr, ending with a newline. */
export function formatError(input: Source, error: ErrorRecord): string {
  const { loc } = error;
  const source = loc.source ?? input;
  let included = '';
  for (let from = source.includedFrom; from !== undefined; from = from.source.includedFrom) {
    const where = from.loc;
    included += `In file included from ${from.source.name ?? ''}:${where.line}:${where.first}-${where.last}:\n`;
  }
  const prefix = source.name === undefined ? '' : `${source.name}:${loc.line}:${loc.first}-${loc.last}: `;
  const text = source.lines[loc.textLine] ?? '';
  const ranges: { loc: Location; mark: string }[] = [{ loc, mark: '^' }];
  if (error.secondary !== undefined && error.secondary.textLine === loc.textLine)
    ranges.push({ loc: error.secondary, mark: '~' });
  return `${included}${prefix}Error: ${error.message}\n${text}\n${marker(text, ranges)}\n`;
}
