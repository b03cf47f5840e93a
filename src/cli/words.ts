// The command line's words split as every packetlab subcommand reads them: options with a value (`--opt VALUE` or `--opt=VALUE`), flags, and the positional words in order; an unknown option or a missing value is the one-line error the command prints.

export interface Words<Valued extends string, Flag extends string> {
  readonly positional: string[];
  readonly values: Map<Valued, string>;
  readonly flags: Set<Flag>;
}

export function splitWords<Valued extends string, Flag extends string>(
  words: readonly string[],
  valuedOptions: readonly Valued[],
  flagOptions: readonly Flag[],
): Words<Valued, Flag> | { readonly error: string } {
  const positional: string[] = [];
  const values = new Map<Valued, string>();
  const flags = new Set<Flag>();
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const valued = valuedOptions.find((option) => word === option || word.startsWith(`${option}=`));
    if (valued !== undefined) {
      const value = word === valued ? words[++i] : word.slice(valued.length + 1);
      if (value === undefined || value === '')
        return { error: `packetlab: option '${valued}' needs a value` };
      values.set(valued, value);
    } else if (flagOptions.includes(word as Flag)) flags.add(word as Flag);
    else if (word.startsWith('-')) return { error: `packetlab: unknown option '${word}'` };
    else positional.push(word);
  }
  return { positional, values, flags };
}
