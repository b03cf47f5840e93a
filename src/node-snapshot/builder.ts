// The rebuild's bookkeeping: it runs each command on the rebuilt node (or the wire) and keeps it with the snapshot
// lines it came from and what it answered, and keeps each part not built (or built otherwise) at its snapshot line.
// It decides nothing: rebuild.ts and rulesets.ts say what to run.

import type { Namespace } from '../netns/namespace.ts';
import { type CommandResult, runArgv } from '../tools/exec.ts';

/** One command run on the rebuilt node. */
export interface BuildCommand {
  readonly argv: readonly string[];
  /** Where its input came from, for the listing (`lines 40-61`). */
  readonly source: string;
  readonly note: string;
  readonly result: CommandResult;
}

/** A part of the snapshot not built, or built as something else. */
export interface Unsupported {
  readonly line: number;
  readonly message: string;
}

/** The commands run so far and the parts not built, in the order they happened. */
export class Builder {
  readonly commands: BuildCommand[] = [];
  readonly unsupported: Unsupported[] = [];

  constructor(
    readonly node: Namespace,
    readonly wire: Namespace,
  ) {}

  run(
    ns: Namespace,
    argv: string[],
    options: { source: string; note?: string; stdin?: string },
  ): CommandResult {
    const result = runArgv(ns, argv, options.stdin ?? '');
    const shown = ns === this.node ? argv : ['ip', 'netns', 'exec', ns.name, ...argv];
    this.commands.push({ argv: shown, source: options.source, note: options.note ?? '', result });
    return result;
  }

  /** A command whose failure means the part was not built: the failure becomes an unsupported entry. */
  must(argv: string[], line: number, what: string, note?: string): boolean {
    const result = this.run(this.node, argv, {
      source: `line ${line}`,
      ...(note !== undefined ? { note } : {}),
    });
    if (result.exitCode === 0) return true;
    this.unsupported.push({ line, message: `${what}: ${firstLine(result.stderr || result.stdout)}` });
    return false;
  }

  note(line: number, message: string): void {
    this.unsupported.push({ line, message });
  }
}

/** A tool's first line of output that is not blank. */
export function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? 'failed';
}
