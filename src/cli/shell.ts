// `packetlab shell`'s terminal side: on a TTY a readline prompt (line editing, history kept in ~/.packetlab_history,
// Ctrl-C interrupts a running capture or clears the line, Ctrl-D leaves), a capture's lines printed as virtual time
// runs at the wall clock's pace; on any other standard input, one command a line, each echoed after its prompt with
// what it printed, a capture interrupted after 10 s of virtual time. The session itself is src/story/shell-session.ts.

import { readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { type ForegroundJob, ShellSession, type ShellWorld } from '../story/shell-session.ts';

/** The wall-clock step of a capture on a terminal; virtual time advances as much. */
const TICK_MS = 100;

const HISTORY_FILE = join(homedir(), '.packetlab_history');
const HISTORY_SIZE = 1000;

export interface ShellStreams {
  readonly input: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly output: NodeJS.WritableStream & { isTTY?: boolean };
  /** Bold prompts. */
  readonly colour: boolean;
}

/** Runs the shell to its end; resolves to the exit status (`exit N`, or the last command's). */
export function runShell(world: ShellWorld, streams: ShellStreams): Promise<number> {
  const session = new ShellSession(world);
  return streams.input.isTTY === true && streams.output.isTTY === true
    ? interactive(session, streams)
    : scripted(session, streams);
}

async function scripted(session: ShellSession, { input, output }: ShellStreams): Promise<number> {
  output.write(session.world.banner);
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY, terminal: false });
  for await (const line of lines) {
    output.write(`${session.prompt}${line}\n`);
    const ran = session.runToEnd(line);
    output.write(ran.text);
    if (ran.exit) {
      lines.close();
      return ran.exitCode;
    }
  }
  return session.lastStatus;
}

function loadHistory(): string[] {
  try {
    // readline keeps the newest first.
    return readFileSync(HISTORY_FILE, 'utf8').split('\n').filter(Boolean).reverse().slice(0, HISTORY_SIZE);
  } catch {
    return [];
  }
}

function saveHistory(history: readonly string[]): void {
  try {
    writeFileSync(HISTORY_FILE, `${[...history].reverse().join('\n')}\n`);
  } catch {
    // A read-only home is no reason to fail the session.
  }
}

function interactive(session: ShellSession, { input, output, colour }: ShellStreams): Promise<number> {
  const paint = (prompt: string) => (colour ? `\x1b[1m${prompt}\x1b[0m` : prompt);
  const rl: Interface = createInterface({
    input,
    output,
    terminal: true,
    history: loadHistory(),
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
    completer: (line: string): [string[], string] => [session.complete(line), /\S*$/.exec(line)![0]],
  });
  output.write(session.world.banner);
  let job: ForegroundJob | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  const typedAhead: string[] = [];
  let exitCode: number | undefined;

  const prompt = () => {
    rl.setPrompt(paint(session.prompt));
    rl.prompt();
  };
  const endJob = (interrupted: boolean) => {
    if (job === undefined) return;
    clearInterval(timer);
    const running = job;
    job = undefined;
    output.write(`${interrupted ? '^C\n' : ''}${session.finish(running)}`);
    while (job === undefined && exitCode === undefined && typedAhead.length > 0) handle(typedAhead.shift()!);
    if (job === undefined && exitCode === undefined) prompt();
  };
  const handle = (line: string) => {
    const step = session.run(line);
    if (step.kind === 'exit') {
      exitCode = step.exitCode;
      rl.close();
      return;
    }
    output.write(step.text);
    if (step.kind === 'running') {
      job = step.job;
      const running = step.job;
      timer = setInterval(() => {
        output.write(running.advance(TICK_MS * 1e6));
        if (running.done) endJob(false);
      }, TICK_MS);
    }
  };

  let history = loadHistory();
  rl.on('history', (latest) => {
    history = latest;
  });
  return new Promise((resolve) => {
    rl.on('line', (line) => {
      if (job !== undefined) {
        typedAhead.push(line);
        return;
      }
      handle(line);
      if (job === undefined && exitCode === undefined) prompt();
    });
    rl.on('SIGINT', () => {
      if (job !== undefined) {
        endJob(true);
        return;
      }
      // bash: ^C, a fresh line, status 130.
      output.write('^C\n');
      rl.write(null, { ctrl: true, name: 'u' });
      session.interrupted();
      prompt();
    });
    rl.on('close', () => {
      clearInterval(timer);
      if (exitCode === undefined) output.write('exit\n');
      saveHistory(history);
      resolve(exitCode ?? session.lastStatus);
    });
    prompt();
  });
}
