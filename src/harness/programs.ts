// The real programs a scenario's kernel side runs: the base tools every run needs, the ones its commands name, and
// the ones its traffic steps start (tcpreplay, go, curl). Node itself runs the peers. Not a check: the caller looks
// each name up on PATH (test/linux/harness.ts skips or fails a case, `packetlab verify` exits 2).

import { ALLOWED_PROGRAMS, type Scenario, type TrafficStep } from './scenario.ts';

/** The programs the real side needs, beyond what a scenario's commands name. */
export const BASE_PROGRAMS = ['ip', 'tcpdump', 'sysctl'] as const;

/** The programs a traffic step needs on the real side, by step kind. */
export const STEP_PROGRAMS: Partial<Record<TrafficStep['kind'], readonly string[]>> = {
  frames: ['tcpreplay'],
  http: ['go', 'curl'],
};

function known(program: string): boolean {
  return (
    (ALLOWED_PROGRAMS as readonly string[]).includes(program) ||
    (BASE_PROGRAMS as readonly string[]).includes(program) ||
    Object.values(STEP_PROGRAMS).some((programs) => programs.includes(program))
  );
}

/** Every program the kernel side of `scenario` starts, base tools first, each once. */
export function kernelPrograms(scenario?: Scenario): string[] {
  const programs = new Set<string>(BASE_PROGRAMS);
  for (const command of [
    ...(scenario?.setup ?? []),
    ...(scenario?.observe ?? []),
    ...(scenario?.monitors ?? []),
  ])
    programs.add(String(command.argv[0]));
  for (const step of scenario?.traffic ?? [])
    if (step.kind === 'command') programs.add(String(step.command.argv[0]));
    else for (const program of STEP_PROGRAMS[step.kind] ?? []) programs.add(program);
  return [...programs].filter(known);
}
