// The words of `npm run bench`: suite names, `--quick`, `--json FILE`, and `--KEY VALUE` pairs for the suites; read by bench/run.ts and again, from the words it passes on, by each suite's process (bench/child.ts).

export interface BenchArgs {
  readonly names: readonly string[];
  readonly quick: boolean;
  readonly json: string | undefined;
  readonly args: Readonly<Record<string, string>>;
}

export function parseBenchArgs(argv: readonly string[]): BenchArgs {
  const names: string[] = [];
  const args: Record<string, string> = {};
  let quick = false;
  let json: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]!;
    if (word === '--quick') quick = true;
    else if (word === '--json') json = argv[++i];
    else if (word.startsWith('--')) args[word.slice(2)] = argv[++i] ?? '';
    else names.push(word);
  }
  return { names, quick, json, args };
}

/** The words a suite's process gets: `--quick` and the `--KEY VALUE` pairs. */
export function suiteWords(invocation: BenchArgs): string[] {
  const words = invocation.quick ? ['--quick'] : [];
  for (const [key, value] of Object.entries(invocation.args)) words.push(`--${key}`, value);
  return words;
}
