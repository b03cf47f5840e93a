// A sweep worker (a piscina thread): runs one seed a task. It loads the scenario once per thread: a scenario by
// name from the table bin/packetlab.mjs loads (scenarios/index, found from this file's place in a checkout or in
// dist/, the same relative path in both), or the user's file through user-file.ts. It does not stream output.

import type { CommandScenario } from '../main.ts';
import { isUserFile, loadUserScenario } from '../user-file.ts';
import { runSeed, type SeedLine, type SeedUsage } from './seed-run.ts';

export interface SeedTask {
  /** A scenario name or the user's file. */
  readonly target: string;
  readonly args: readonly string[];
  readonly seed: number;
  readonly metric: string | undefined;
}

const loaded = new Map<string, Promise<CommandScenario>>();

/** The scenario table of this installation: src/cli/sweep/worker.ts → scenarios/index.ts, dist alike with .js. */
async function table(): Promise<readonly CommandScenario[]> {
  const extension = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const module = (await import(new URL(`../../../scenarios/index${extension}`, import.meta.url).href)) as {
    readonly SCENARIOS: readonly CommandScenario[];
  };
  return module.SCENARIOS;
}

async function load(target: string): Promise<CommandScenario> {
  if (isUserFile(target)) {
    const file = await loadUserScenario(target);
    if ('error' in file) throw new Error(file.error);
    return file.scenario;
  }
  const entry = (await table()).find((candidate) => candidate.name === target);
  if (entry === undefined) throw new Error(`packetlab: unknown scenario '${target}'`);
  return entry;
}

export default async function runTask(task: SeedTask): Promise<SeedLine | SeedUsage> {
  let scenario = loaded.get(task.target);
  if (scenario === undefined) {
    scenario = load(task.target);
    loaded.set(task.target, scenario);
  }
  return runSeed(await scenario, task.seed, task.args, task.metric);
}
