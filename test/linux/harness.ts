// Runs one scenario on both sides and compares them; `differential()` is what every case under test/linux/ calls.
// Without network namespaces (not root, not Linux) a case skips with a notice locally and fails in CI.

import { expect } from 'vitest';
import { kernelPrograms } from '../../src/harness/programs.ts';
import { requireNetns } from '../support/netns.ts';
import { requireTool, type SkippableTest } from '../support/tools.ts';
import {
  type Comparison,
  compareRuns,
  formatComparison,
  type KnownDifference,
  type Normaliser,
  type Tolerance,
} from './compare.ts';
import { runLinux } from './linux-driver.ts';
import type { Observed } from './observed.ts';
import { type PacketlabRun, runPacketlab } from './packetlab-driver.ts';
import type { Scenario } from './scenario.ts';

export interface DifferentialOptions {
  readonly known?: readonly KnownDifference[];
  readonly normalise?: readonly Normaliser[];
  readonly tolerances?: readonly Tolerance[];
  /** The ports no NAT chose, when a NAT in the case picks ports at random (compare.ts, normaliseNatPorts). */
  readonly natPorts?: readonly number[];
  /** Capture labels compared as TCP byte streams instead of frame by frame (streams.ts): transfers past one segment. */
  readonly tcpStreams?: readonly string[];
}

export interface DifferentialResult {
  readonly linux: Observed;
  readonly packetlab: PacketlabRun;
  readonly comparison: Comparison;
}

/** How many times a kernel run that differs runs again before the case fails. */
const KERNEL_RERUNS = 2;

/** True when this machine can run the real side; otherwise skips the test (locally) or throws (CI). */
export function requireKernel(test: SkippableTest, scenario?: Scenario): boolean {
  if (!requireNetns(test)) return false;
  for (const program of kernelPrograms(scenario)) if (!requireTool(program, test)) return false;
  return true;
}

/** Runs `scenario` on packetlab and on the kernel; asserts no unexplained difference and no stale known entry. */
export async function differential(
  test: SkippableTest,
  scenario: Scenario,
  options: DifferentialOptions = {},
): Promise<DifferentialResult | undefined> {
  if (!requireKernel(test, scenario)) return undefined;
  const packetlab = runPacketlab(scenario);
  const compare = (linux: Observed) =>
    compareRuns(linux, packetlab, {
      ...(options.known !== undefined ? { known: options.known } : {}),
      ...(options.normalise !== undefined ? { normalise: options.normalise } : {}),
      ...(options.tolerances !== undefined ? { tolerances: options.tolerances } : {}),
      ...(options.natPorts !== undefined ? { natPorts: options.natPorts } : {}),
      ...(options.tcpStreams !== undefined ? { tcpStreams: options.tcpStreams } : {}),
    });
  let linux = await runLinux(scenario);
  let comparison = compare(linux);
  // packetlab runs on virtual time and gives the same run every time; the kernel runs on the machine's own time,
  // and a loaded machine can stretch a step past a timer. A kernel run that differs runs again (at most
  // KERNEL_RERUNS times), with a notice: the case passes only on a kernel run that agrees in full.
  for (let rerun = 1; rerun <= KERNEL_RERUNS && formatComparison(comparison) !== ''; rerun++) {
    console.warn(
      `${scenario.name}: the kernel run differs, running it again (${rerun} of ${KERNEL_RERUNS}):\n${formatComparison(comparison)}`,
    );
    linux = await runLinux(scenario);
    comparison = compare(linux);
  }
  expect(formatComparison(comparison), `${scenario.name}: linux and packetlab differ`).toBe('');
  return { linux, packetlab, comparison };
}

/** The output of a traffic or observe command by its label's start (`diag: ping`), for extra assertions. */
export function outputOf(observed: Observed, labelStart: string): string {
  const found = [...observed.traffic, ...observed.observe].find((o) => o.label.startsWith(labelStart));
  if (found === undefined) throw new Error(`no output labelled ${labelStart}`);
  return `${found.stdout}${found.stderr}`;
}
