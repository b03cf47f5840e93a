// `packetlab verify NAME [ARGS...] [--observe 'NS: COMMAND']... [--debug]`: runs the scenario's kernel plan (its
// entry's `plan`) on packetlab and on the real kernel in throw-away namespaces (linux-driver.ts), compares them with
// the harness's comparator and prints where they differ, as the test/linux cases report it. Exit 0 when they agree,
// 1 when they differ, 2 when the plan cannot run here (not Linux, not root, a missing tool or peer, bad arguments).
// A kernel run that differs runs again, at most twice (the kernel runs on the machine's clock; packetlab's side is
// deterministic). Not supported: scenarios without a plan, choosing which observations to compare.

import { type Comparison, compareRuns, formatComparison } from '../../harness/compare.ts';
import type { KernelPlan, KernelPlanResult } from '../../harness/kernel-plan.ts';
import type { Observed } from '../../harness/observed.ts';
import { runPacketlab } from '../../harness/packetlab-driver.ts';
import { type Command, type Scenario, ScenarioBuilder } from '../../harness/scenario.ts';
import { shellWords } from '../../tools/shell-words.ts';
import { kernelBlocker, type Machine, thisMachine } from './kernel.ts';
import { runLinux } from './linux-driver.ts';

/** A scenario verify can look up: scenarios/index.ts's entries have this shape. */
export interface VerifiableScenario {
  readonly name: string;
  plan?(options: { readonly seed: string | undefined; readonly args: readonly string[] }): KernelPlanResult;
}

export const VERIFY_USAGE = "usage: packetlab verify NAME [ARGS...] [--observe 'NS: COMMAND']... [--debug]";

/** How many times a kernel run that differs runs again (test/linux/harness.ts does the same). */
const KERNEL_RERUNS = 2;

export interface VerifyIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  /** Whether stderr is a terminal (a progress line). */
  readonly tty: boolean;
  readonly machine: Machine;
  /** Runs the plan on the kernel (the Linux driver; a test may record the calls). */
  readonly runKernel: (scenario: Scenario) => Promise<Observed>;
}

function defaultIo(): VerifyIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    tty: process.stderr.isTTY === true,
    machine: thisMachine(),
    runKernel: interruptible,
  };
}

/** The Linux driver, with Ctrl-C turned into an exit so its exit hook deletes the run's namespaces. */
async function interruptible(scenario: Scenario): Promise<Observed> {
  const stop = () => {
    process.stderr.write('\npacketlab: verify interrupted, deleting its namespaces\n');
    process.exit(130);
  };
  process.once('SIGINT', stop);
  try {
    return await runLinux(scenario);
  } finally {
    process.off('SIGINT', stop);
  }
}

interface VerifyRequest {
  readonly name: string;
  readonly args: readonly string[];
  readonly observe: readonly string[];
  readonly debug: boolean;
}

function parse(words: readonly string[]): VerifyRequest | { readonly error: string } {
  const positional: string[] = [];
  const observe: string[] = [];
  let debug = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word === '--observe' || word.startsWith('--observe=')) {
      const value = word === '--observe' ? words[++i] : word.slice('--observe='.length);
      if (value === undefined || value === '')
        return { error: "packetlab: option '--observe' needs a value" };
      observe.push(value);
    } else if (word === '--debug') debug = true;
    else if (word.startsWith('-')) return { error: `packetlab: unknown option '${word}'` };
    else positional.push(word);
  }
  const [name, ...args] = positional;
  if (name === undefined)
    return { error: 'packetlab: verify needs a scenario name (packetlab list shows them)' };
  return { name, args, observe, debug };
}

/** `NS: COMMAND WORDS...` as a harness command, or the one-line error. */
function observation(text: string): Command | { readonly error: string } {
  const colon = text.indexOf(':');
  const ns = colon < 0 ? '' : text.slice(0, colon).trim();
  const words = shellWords(colon < 0 ? '' : text.slice(colon + 1));
  if (ns === '' || !words.ok || words.words.length === 0)
    return {
      error: `packetlab: --observe '${text}': expected 'NS: COMMAND' (a namespace of the plan, then a command)`,
    };
  return { ns, argv: words.words };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

/** The summary line: what was compared. */
function tally(linux: Observed): string {
  const frames = linux.captures.reduce((sum, capture) => sum + capture.frames.length, 0);
  return `${plural(linux.traffic.length + linux.observe.length, 'observation')}, ${plural(linux.captures.length, 'capture')} (${plural(frames, 'frame')}) after ${plural(linux.setup.length, 'set-up command')}`;
}

function errorLine(error: unknown, debug: boolean): string {
  if (debug && error instanceof Error && error.stack !== undefined) return error.stack;
  return error instanceof Error ? error.message.split('\n')[0]! : String(error);
}

export async function verify(
  words: readonly string[],
  scenarios: readonly VerifiableScenario[],
  io: VerifyIo = defaultIo(),
): Promise<number> {
  const request = parse(words);
  if ('error' in request) {
    io.stderr(`${request.error}\n${VERIFY_USAGE}\n`);
    return 2;
  }
  const entry = scenarios.find((candidate) => candidate.name === request.name);
  if (entry === undefined) {
    io.stderr(`packetlab: unknown scenario '${request.name}' (packetlab list shows them)\n`);
    return 2;
  }
  if (entry.plan === undefined) {
    const planned = scenarios
      .filter((candidate) => candidate.plan !== undefined)
      .map((candidate) => candidate.name);
    io.stderr(`packetlab: scenario ${entry.name} has no kernel plan (verify runs ${planned.join(', ')})\n`);
    return 2;
  }
  let plan: KernelPlan;
  try {
    const planned = entry.plan({ seed: undefined, args: request.args });
    if ('usage' in planned) {
      io.stderr(`${planned.usage}\n`);
      return 2;
    }
    const extra: Command[] = [];
    for (const text of request.observe) {
      const command = observation(text);
      if ('error' in command) {
        io.stderr(`${command.error}\n`);
        return 2;
      }
      if (!planned.scenario.namespaces.includes(command.ns)) {
        io.stderr(
          `packetlab: --observe '${text}': no namespace ${command.ns} in the plan (${planned.scenario.namespaces.join(', ')})\n`,
        );
        return 2;
      }
      extra.push(command);
    }
    plan = { ...planned, scenario: ScenarioBuilder.observing(planned.scenario, extra) };
  } catch (error) {
    io.stderr(`packetlab: verify ${request.name}: ${errorLine(error, request.debug)}\n`);
    return 2;
  }

  const blocker = kernelBlocker(plan.scenario, io.machine);
  if (blocker !== undefined) {
    io.stderr(`${blocker}\n`);
    return 2;
  }

  io.stdout(`packetlab verify ${[request.name, ...request.args].join(' ')}: ${plan.covers}\n`);
  if (io.tty) io.stderr('packetlab: running the plan on packetlab and on Linux...');
  const clear = () => {
    if (io.tty) io.stderr('\r\x1b[K');
  };
  let linux: Observed;
  let comparison: Comparison;
  try {
    const packetlab = runPacketlab(plan.scenario);
    const compare = (observed: Observed) => compareRuns(observed, packetlab, plan.compare);
    linux = await io.runKernel(plan.scenario);
    comparison = compare(linux);
    for (let rerun = 1; rerun <= KERNEL_RERUNS && formatComparison(comparison) !== ''; rerun++) {
      clear();
      io.stderr(`packetlab: the kernel run differs, running it again (${rerun} of ${KERNEL_RERUNS})\n`);
      linux = await io.runKernel(plan.scenario);
      comparison = compare(linux);
    }
  } catch (error) {
    clear();
    io.stderr(`packetlab: verify ${request.name} could not run: ${errorLine(error, request.debug)}\n`);
    return 2;
  }
  clear();
  const report = formatComparison(comparison);
  if (report === '') {
    io.stdout(`packetlab and Linux agree: ${tally(linux)}\n`);
    return 0;
  }
  const count = comparison.unexpected.length + comparison.unused.length;
  io.stdout(`${report}\npacketlab and Linux differ: ${plural(count, 'difference')} in ${tally(linux)}\n`);
  return 1;
}
