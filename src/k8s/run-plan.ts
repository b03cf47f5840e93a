// Runs a command plan in a Simulation: its namespaces, its underlay segments (ports with fixed MACs) and its commands
// through the command façade (runArgv, no shell), with namespace words resolved to the runner's namespaces and file
// words written to the simulation's file store. Does not run anything in the background (captures, monitors).

import type { Namespace } from '../netns/namespace.ts';
import type { Segment } from '../netns/segment.ts';
import type { Simulation } from '../netns/simulation.ts';
import { runArgv } from '../tools/exec.ts';
import type { CommandResult } from '../tools/result.ts';
import { parseMac } from '../wire/address.ts';
import type { Command, SegmentPort, SegmentSpec, Word } from './plan.ts';

/** A whole plan: namespaces to create, segments to build, then the commands in order. */
export interface Plan {
  readonly namespaces: readonly string[];
  readonly segments: readonly SegmentSpec[];
  readonly commands: readonly Command[];
}

export interface PlanRunnerOptions {
  /** Where file words are written in `sim.files` (default `/run/packetlab/`). */
  readonly fileDir?: string;
}

/** The namespaces and segments of a plan being run, and the one way to run its commands. */
export class PlanRunner {
  private readonly namespaces = new Map<string, Namespace>();
  private readonly segments = new Map<string, Segment>();
  private readonly fileDir: string;

  constructor(
    readonly sim: Simulation,
    options: PlanRunnerOptions = {},
  ) {
    this.fileDir = options.fileDir ?? '/run/packetlab/';
  }

  /** `ip netns add NAME` (lo down, as Linux creates it). */
  addNamespace(name: string): Namespace {
    const ns = this.sim.addNamespace(name);
    this.namespaces.set(name, ns);
    return ns;
  }

  /** `ip netns del NAME`: the namespace leaves the simulation with its devices (a veth takes its peer along). */
  removeNamespace(name: string): void {
    const ns = this.nsOf(name);
    this.namespaces.delete(name);
    this.sim.removeNamespace(ns);
  }

  hasNamespace(name: string): boolean {
    return this.namespaces.has(name);
  }

  /** The namespace a plan name stands for; a name outside the plan is a programming error. */
  nsOf(name: string): Namespace {
    const ns = this.namespaces.get(name);
    if (ns === undefined) throw new Error(`no namespace ${name} in the plan`);
    return ns;
  }

  /** Builds a segment and plugs its ports in. */
  addSegment(spec: SegmentSpec): Segment {
    const segment = this.sim.addSegment(spec.name, { mtu: spec.mtu });
    this.segments.set(spec.name, segment);
    for (const port of spec.ports) this.attach(spec.name, port);
    return segment;
  }

  segmentOf(name: string): Segment {
    const segment = this.segments.get(name);
    if (segment === undefined) throw new Error(`no segment ${name} in the plan`);
    return segment;
  }

  /** Plugs one more interface into a segment (a node joining the Docker network later). */
  attach(segmentName: string, port: SegmentPort): void {
    const mac = parseMac(port.mac);
    if (mac === undefined) throw new Error(`bad MAC ${port.mac}`);
    this.segmentOf(segmentName).attach(this.nsOf(port.ns), port.ifname, { mtu: port.mtu, mac });
  }

  /** A word as the façade sees it: text as is, a namespace by its name, a file written and named by its path. */
  word(w: Word): string {
    if (typeof w === 'string') return w;
    if ('ns' in w) return this.nsOf(w.ns).name;
    const path = `${this.fileDir}${w.file}`;
    this.sim.files.set(path, new TextEncoder().encode(w.text));
    return path;
  }

  /** The argument vector with its words resolved. */
  argv(command: Command): string[] {
    return command.argv.map((w) => this.word(w));
  }

  run(command: Command): CommandResult {
    return runArgv(this.nsOf(command.ns), this.argv(command), command.stdin ?? '');
  }

  /** Runs commands in order; the first that fails is an Error naming it (set-up must not half-apply silently). */
  mustRun(commands: readonly Command[]): void {
    for (const command of commands) {
      const result = this.run(command);
      if (result.exitCode !== 0)
        throw new Error(`${command.ns}: ${this.argv(command).join(' ')}: ${result.stderr.trim()}`);
    }
  }
}

/** Runs a whole plan and returns the runner (for the namespaces) and each command's result, in order. */
export function runPlan(
  sim: Simulation,
  plan: Plan,
  options: PlanRunnerOptions = {},
): { readonly runner: PlanRunner; readonly results: readonly CommandResult[] } {
  const runner = new PlanRunner(sim, options);
  for (const name of plan.namespaces) runner.addNamespace(name);
  for (const spec of plan.segments) runner.addSegment(spec);
  const results = plan.commands.map((command) => runner.run(command));
  return { runner, results };
}
