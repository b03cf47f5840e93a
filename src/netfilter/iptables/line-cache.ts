// The parsed form of iptables-restore rule lines, interned across every namespace of the process: nodes that load
// the same ruleset (kube-proxy's, nearly identical on every node) parse each line once and share the parsed command,
// hence its compiled expressions (command.ts compiles once per parsed rule). Parsed commands are immutable; what
// differs per namespace (handles, counters, the chains' rule lists) is made when the command is applied. Does not
// cache lines that fail to parse (their error text names the line number),; a `[packets:bytes]` prefix is not part of the cached line.

import type { ParsedCommand } from './parser.ts';

/** Past this many distinct lines the cache starts over, so a long run with churning rulesets stays bounded. */
const MAX_LINES = 1 << 18;

export class RestoreLineCache {
  private readonly parsed = new Map<string, ParsedCommand>();
  private readonly names = new Map<string, string>();

  /** The key of `line` in `table`; building it copies the line, so the cache does not keep the whole input alive. */
  key(table: string, line: string): string {
    return `${table}\n${line}`;
  }

  get(key: string): ParsedCommand | undefined {
    return this.parsed.get(key);
  }

  set(key: string, command: ParsedCommand): void {
    if (this.parsed.size >= MAX_LINES) this.parsed.clear();
    this.parsed.set(key, command);
  }

  /**
   * One copy of a chain name from a `:CHAIN` line: the word is a slice of the whole input, and a chain keeping it
   * would keep the input alive in every namespace.
   */
  chainName(word: string): string {
    const known = this.names.get(word);
    if (known !== undefined) return known;
    if (this.names.size >= MAX_LINES) this.names.clear();
    const copy = ` ${word}`.slice(1);
    this.names.set(copy, copy);
    return copy;
  }

  /** Forgets every line (tests: a namespace loaded as if it were the process's first). */
  clear(): void {
    this.parsed.clear();
    this.names.clear();
  }

  get size(): number {
    return this.parsed.size;
  }
}

/** The process's one cache (parsing is a pure function of the table and the line). */
export const restoreLineCache = new RestoreLineCache();
