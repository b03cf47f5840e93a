// What a command returns: its standard output, standard error and exit code, as the real tool would.

export interface CommandResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number;
}

export function ok(stdout: string): CommandResult {
  return { stdout, stderr: '', exitCode: 0 };
}

export function fail(stderr: string, exitCode = 1, stdout = ''): CommandResult {
  return { stdout, stderr, exitCode };
}

/**
 * What every command says for an option or form packetlab does not model, the same way for
 * every tool: `packetlab: COMMAND OPTION is not supported`, exit 1.
 */
export function unsupported(command: string, option: string): CommandResult {
  return fail(`packetlab: ${command} ${option} is not supported\n`);
}
