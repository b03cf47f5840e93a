// A scenario's world behind a prompt, as `packetlab shell` drives it: one typed line at a time, run where the world
// says (the kind host, a node entered with `docker exec -it NODE bash`, a pod), in virtual time, with bash's
// builtins a lab needs (help, exit, echo $?, sleep, timeout, jobs, fg, kill %N, history) and `CMD &` for captures.
// Not a shell language: no pipes, redirections (beyond the façade's `< FILE`), lists, variables or globbing.

import type { Simulation } from '../netns/simulation.ts';
import type { CommandResult } from '../tools/result.ts';
import { shellWords } from '../tools/shell-words.ts';
import type { Capture } from '../tools/tcpdump.ts';

/** Where lines run: the world's top prompt, or a shell entered from it. */
export interface ShellLevel {
  readonly prompt: string;
  /** Whether the program exists here (bash answers `command not found` otherwise). */
  knows(program: string): boolean;
  exec(line: string): CommandResult;
  /** Starts a long-running line (tcpdump, conntrack -E, nft monitor): its handle, or its result if it ended. */
  spawn(line: string): Capture | CommandResult;
  /** The interactive shell a line opens from here (`docker exec -it NODE bash`), if it opens one. */
  enter(words: readonly string[]): ShellLevel | undefined;
}

/** What a scenario hands the shell: its simulation, the first level, and what to tell the student. */
export interface ShellWorld {
  /** Printed once, before the first prompt: what is there and what to try. */
  readonly banner: string;
  /** The world's part of `help`: where commands run, the names and addresses to use. */
  readonly help: string;
  readonly top: ShellLevel;
  readonly sim: Simulation;
  /** The world's names Tab completes (nodes, pods, namespaces, Services). */
  readonly names: readonly string[];
}

/** A command that runs until it is done or interrupted, its virtual clock driven by the caller. */
export interface ForegroundJob {
  /** True once it ended by itself (tcpdump's -c count reached). */
  readonly done: boolean;
  /** Advances the virtual clock; returns what it printed meanwhile. */
  advance(ns: number): string;
  /** Ends it (Ctrl-C, or after done); returns the rest of what it prints (tcpdump's statistics). */
  end(): string;
}

export type ShellStep =
  | { readonly kind: 'done'; readonly text: string; readonly exitCode: number }
  | { readonly kind: 'running'; readonly text: string; readonly job: ForegroundJob }
  | { readonly kind: 'exit'; readonly text: string; readonly exitCode: number };

/** A script cannot press Ctrl-C: a capture still running after this much virtual time is interrupted as by it. */
export const SCRIPT_INTERRUPT_NS = 10e9;

/** Virtual time a user takes between two commands: what the last one left in flight (a close) completes. */
export const TYPING_PAUSE_NS = 100_000_000;

const BUILTINS = [
  'help',
  'exit',
  'logout',
  'echo',
  'sleep',
  'timeout',
  'jobs',
  'fg',
  'kill',
  'history',
  'true',
  'false',
];

/** Shell syntax this shell refuses (bash would run it): one plain command a line. */
const OPERATORS = new Set(['|', '||', '&&', ';', '>', '>>', '2>', '2>&1', '&>']);

/** The words of the lesson's commands Tab completes, beside the builtins and the world's names. */
const COMMAND_WORDS = [
  'docker',
  'exec',
  'kubectl',
  'get',
  'describe',
  'logs',
  'debug',
  'pods',
  'nodes',
  'services',
  'endpointslices',
  'daemonsets',
  'wide',
  'bash',
  'ip',
  'route',
  'addr',
  'link',
  'neigh',
  'rule',
  'netns',
  'conntrack',
  'tcpdump',
  'ping',
  'curl',
  'iptables',
  'iptables-save',
  'nft',
  'list',
  'ruleset',
  'monitor',
  'trace',
  'ss',
  'sysctl',
  'crictl',
  'nsenter',
  'nstat',
  'bridge',
  'tc',
  'dmesg',
];

const SESSION_HELP = `packetlab shell: the scenario's machines behind a prompt, in virtual time (the clock runs while a command runs).
  help                   this text
  exit [N], Ctrl-D       leave the shell entered last (at the top: leave packetlab shell, status N or the last one)
  echo ARGS, echo $?     print, and the last command's exit status
  sleep N[s|m]           let N seconds of virtual time pass (timers, retransmissions, kube-proxy syncs)
  timeout N CMD          run a capture (tcpdump, conntrack -E, nft monitor) for N seconds, exit 124 if still running
  CMD &                  run a capture in the background; its lines print after each later command
  jobs, fg [%N], kill %N the background captures: list, bring back (then Ctrl-C), stop (prints its statistics)
  history                the lines typed so far
  tcpdump without -c runs until Ctrl-C; with standard input not a terminal, packetlab presses Ctrl-C after
  10 s of virtual time. ping needs -c (or -w). One command a line: no pipes, redirections, ; or &&.
`;

/** The text of a result as a terminal shows it: the tool's stdout and stderr on one screen (stderr last). */
export function terminalText(result: CommandResult): string {
  return `${result.stdout}${result.stderr}`;
}

/** A capture's output as a terminal shows it: banner, the lines, then what it prints at exit. */
function endText(capture: Capture, result: CommandResult, printed: number): string {
  const banner = capture.banner ?? '';
  const stats = result.stderr.startsWith(banner) ? result.stderr.slice(banner.length) : result.stderr;
  return `${result.stdout.slice(printed)}${stats}`;
}

interface BackgroundJob {
  readonly id: number;
  readonly pid: number;
  readonly line: string;
  readonly capture: Capture;
  printed: number;
}

/** Lines that would run until interrupted: captures and monitors (spawned, not run to completion). */
function isLongRunning(words: readonly string[]): boolean {
  const has = (word: string) => words.includes(word);
  return (
    has('tcpdump') ||
    has('xtables-monitor') ||
    (has('nft') && has('monitor')) ||
    (has('conntrack') && words.some((word) => word === '-E' || word === '--event'))
  );
}

/** `ping` with neither -c nor -w pings until Ctrl-C; the façade's synchronous ping cannot be interrupted. */
function isEndlessPing(words: readonly string[]): boolean {
  const at = words.indexOf('ping');
  if (at < 0) return false;
  return !words.slice(at + 1).some((word) => /^-[a-zA-Z]*[cw]/.test(word));
}

/** coreutils' DURATION: a number with an optional s, m, h or d suffix (sleep, timeout), in nanoseconds. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d*)?|\.\d+)([smhd]?)$/.exec(text);
  if (match === null) return undefined;
  const unit = { '': 1, s: 1, m: 60, h: 3600, d: 86400 }[match[2] as '' | 's' | 'm' | 'h' | 'd'];
  return Math.round(Number(match[1]) * unit * 1e9);
}

/** bash's job line: `[1]+  Running                 tcpdump -ni any &`. */
function jobLine(job: BackgroundJob, state: string, last: boolean): string {
  return `[${job.id}]${last ? '+' : '-'}  ${state.padEnd(24)}${job.line}`;
}

export class ShellSession {
  private readonly levels: ShellLevel[];
  private readonly jobs: BackgroundJob[] = [];
  private readonly typed: string[] = [];
  private nextJobId = 1;
  private nextPid = 4242;
  private status = 0;

  constructor(readonly world: ShellWorld) {
    this.levels = [world.top];
  }

  get prompt(): string {
    return this.levels.at(-1)!.prompt;
  }

  /** The exit status of the last command. */
  get lastStatus(): number {
    return this.status;
  }

  /** Tab: the builtins, command words and world names that start like the line's last word. */
  complete(line: string): string[] {
    const word = /\S*$/.exec(line)![0];
    const first = line.trim() === word;
    const pool = first ? [...BUILTINS, ...COMMAND_WORDS] : [...COMMAND_WORDS, ...this.world.names];
    return [...new Set(pool)].filter((candidate) => candidate.startsWith(word)).sort();
  }

  /** Ctrl-C at the prompt: bash's status 130. */
  interrupted(): void {
    this.status = 130;
  }

  /** Runs one typed line; a long-running one comes back as a job for the caller to drive and end. */
  run(line: string): ShellStep {
    const trimmed = line.trim();
    if (trimmed !== '') this.typed.push(trimmed);
    const step = this.dispatch(trimmed);
    if (step.kind !== 'running') {
      this.status = step.exitCode;
      if (step.kind === 'done' && trimmed !== '') this.world.sim.run(TYPING_PAUSE_NS);
      return { ...step, text: step.text + (step.kind === 'done' ? this.notices() : '') };
    }
    return step;
  }

  /** Runs one line to its end, as a script would: a capture still running after SCRIPT_INTERRUPT_NS gets Ctrl-C. */
  runToEnd(line: string): { readonly text: string; readonly exitCode: number; readonly exit: boolean } {
    const step = this.run(line);
    if (step.kind !== 'running')
      return { text: step.text, exitCode: step.exitCode, exit: step.kind === 'exit' };
    let text = step.text + step.job.advance(SCRIPT_INTERRUPT_NS);
    if (!step.job.done) text += '^C\n';
    return { text: text + this.finish(step.job), exitCode: this.status, exit: false };
  }

  /** Ends a job run() returned, as Ctrl-C or its own end would; returns its last text. */
  finish(job: ForegroundJob, exitCode = 0): string {
    const text = job.end();
    this.status = exitCode;
    this.world.sim.run(TYPING_PAUSE_NS);
    return text + this.notices();
  }

  /** What the background captures printed since the last look, and bash's `Done` lines for those that ended. */
  notices(): string {
    let text = '';
    for (const job of [...this.jobs]) {
      text += job.capture.stdout.slice(job.printed);
      job.printed = job.capture.stdout.length;
      if (job.capture.done) {
        text += `${endText(job.capture, job.capture.stop(), job.printed)}${jobLine(job, 'Done', job === this.jobs.at(-1))}\n`;
        this.jobs.splice(this.jobs.indexOf(job), 1);
      }
    }
    return text;
  }

  private dispatch(line: string): ShellStep {
    if (line === '' || line.startsWith('#')) return { kind: 'done', text: '', exitCode: this.status };
    const parsed = shellWords(line);
    const level = this.levels.at(-1)!;
    if (!parsed.ok) return fail(`bash: ${parsed.message}\n`, 2);
    let words = parsed.words;
    if (words.some((word) => OPERATORS.has(word)))
      return fail('packetlab: shell: one command a line: no pipes, redirections, ; or &&\n', 2);
    let background = false;
    if (words.at(-1) === '&') {
      background = true;
      words = words.slice(0, -1);
      line = line.replace(/\s*&\s*$/, '');
    } else if (words.at(-1)?.endsWith('&') === true && !words.at(-1)!.endsWith('\\&')) {
      background = true;
      words = [...words.slice(0, -1), words.at(-1)!.slice(0, -1)];
      line = line.replace(/&\s*$/, '');
    }
    // Everyone is root here: `sudo CMD` is CMD.
    while (words[0] === 'sudo' && words.length > 1) {
      words = words.slice(1);
      line = line.replace(/^\s*sudo\s+/, '');
    }
    const [name] = words;
    if (name === undefined) return { kind: 'done', text: '', exitCode: this.status };
    if (BUILTINS.includes(name) && !background) return this.builtin(name, words.slice(1), line);
    if (!level.knows(name)) return fail(`bash: ${name}: command not found\n`, 127);
    if (background) return this.startBackground(level, line);
    const entered = level.enter(words);
    if (entered !== undefined) {
      this.levels.push(entered);
      return { kind: 'done', text: '', exitCode: 0 };
    }
    if (isEndlessPing(words))
      return fail(
        'packetlab: shell: ping needs -c COUNT (or -w DEADLINE): it cannot be interrupted here\n',
        2,
      );
    if (isLongRunning(words)) return this.foreground(level.spawn(line));
    return done(level.exec(line));
  }

  private foreground(started: Capture | CommandResult, printed = 0): ShellStep {
    if (!('stop' in started)) return done(started);
    const capture = started;
    let shown = printed;
    const job: ForegroundJob = {
      get done() {
        return capture.done;
      },
      advance: (ns) => {
        // Small steps, so a capture that reaches its -c count stops the clock close to where tcpdump would exit.
        const until = this.world.sim.now + ns;
        while (!capture.done && this.world.sim.now < until)
          this.world.sim.run(Math.min(10_000_000, until - this.world.sim.now));
        const text = capture.stdout.slice(shown);
        shown = capture.stdout.length;
        return text;
      },
      end: () => endText(capture, capture.stop(), shown),
    };
    return { kind: 'running', text: printed === 0 ? (capture.banner ?? '') : '', job };
  }

  private startBackground(level: ShellLevel, line: string): ShellStep {
    const started = level.spawn(line);
    if (!('stop' in started)) return done(started);
    const job: BackgroundJob = {
      id: this.nextJobId++,
      pid: this.nextPid++,
      line,
      capture: started,
      printed: 0,
    };
    this.jobs.push(job);
    return { kind: 'done', text: `[${job.id}] ${job.pid}\n${started.banner ?? ''}`, exitCode: 0 };
  }

  private builtin(name: string, args: readonly string[], line: string): ShellStep {
    switch (name) {
      case 'help':
        return { kind: 'done', text: `${SESSION_HELP}\n${this.world.help}`, exitCode: 0 };
      case 'true':
        return { kind: 'done', text: '', exitCode: 0 };
      case 'false':
        return { kind: 'done', text: '', exitCode: 1 };
      case 'exit':
      case 'logout': {
        const code = args[0] === undefined ? this.status : Number(args[0]);
        if (!Number.isInteger(code)) return fail(`bash: exit: ${args[0]}: numeric argument required\n`, 2);
        if (this.levels.length > 1) {
          this.levels.pop();
          return { kind: 'done', text: 'exit\n', exitCode: code & 0xff };
        }
        return { kind: 'exit', text: '', exitCode: code & 0xff };
      }
      case 'echo':
        return {
          kind: 'done',
          text: `${args.map((arg) => arg.replaceAll('$?', String(this.status))).join(' ')}\n`,
          exitCode: 0,
        };
      case 'sleep': {
        const ns = args.length === 1 ? parseDuration(args[0]!) : undefined;
        if (ns === undefined)
          return fail(
            args.length === 0
              ? 'sleep: missing operand\n'
              : `sleep: invalid time interval '${args.join(' ')}'\n`,
          );
        this.world.sim.run(ns);
        return { kind: 'done', text: '', exitCode: 0 };
      }
      case 'timeout':
        return this.timeout(args, line);
      case 'history':
        return {
          kind: 'done',
          text: this.typed.map((typed, i) => `${String(i + 1).padStart(5)}  ${typed}\n`).join(''),
          exitCode: 0,
        };
      case 'jobs':
        return {
          kind: 'done',
          text: this.jobs
            .map((job, i) => `${jobLine(job, 'Running', i === this.jobs.length - 1)} &\n`)
            .join(''),
          exitCode: 0,
        };
      case 'fg':
      case 'kill': {
        const job = this.jobOf(args[0]);
        if (job === undefined) {
          const spec = args[0] ?? 'current';
          return fail(`bash: ${name}: ${spec}: no such job\n`);
        }
        this.jobs.splice(this.jobs.indexOf(job), 1);
        if (name === 'kill') {
          const text = `${job.capture.stdout.slice(job.printed)}${endText(job.capture, job.capture.stop(), job.capture.stdout.length)}`;
          return { kind: 'done', text: `${text}${jobLine(job, 'Terminated', true)}\n`, exitCode: 0 };
        }
        const step = this.foreground(job.capture, job.printed);
        return step.kind === 'running' ? { ...step, text: `${job.line}\n` } : step;
      }
      default:
        return fail(`bash: ${name}: command not found\n`, 127);
    }
  }

  /** `%N` (or the last job when absent). */
  private jobOf(spec: string | undefined): BackgroundJob | undefined {
    if (spec === undefined) return this.jobs.at(-1);
    const match = /^%(\d+)$/.exec(spec);
    return match === null ? undefined : this.jobs.find((job) => job.id === Number(match[1]));
  }

  /** coreutils timeout: a capture runs for the duration, then gets SIGTERM (exit 124); other commands just run. */
  private timeout(args: readonly string[], line: string): ShellStep {
    const [duration, program] = args;
    if (duration === undefined)
      return fail("timeout: missing operand\nTry 'timeout --help' for more information.\n", 125);
    const ns = parseDuration(duration);
    if (ns === undefined)
      return fail(
        `timeout: invalid time interval '${duration}'\nTry 'timeout --help' for more information.\n`,
        125,
      );
    if (program === undefined)
      return fail("timeout: missing operand\nTry 'timeout --help' for more information.\n", 125);
    const level = this.levels.at(-1)!;
    if (!level.knows(program))
      return fail(`timeout: failed to run command '${program}': No such file or directory\n`, 127);
    const rest = line.replace(/^\s*timeout\s+\S+\s+/, '');
    if (!isLongRunning(args.slice(1))) return done(level.exec(rest));
    const step = this.foreground(level.spawn(rest));
    if (step.kind !== 'running') return step;
    let text = step.text + step.job.advance(ns);
    const timedOut = !step.job.done;
    text += step.job.end();
    return { kind: 'done', text, exitCode: timedOut ? 124 : 0 };
  }
}

function done(result: CommandResult): ShellStep {
  return { kind: 'done', text: terminalText(result), exitCode: result.exitCode };
}

function fail(text: string, exitCode = 1): ShellStep {
  return { kind: 'done', text, exitCode };
}
