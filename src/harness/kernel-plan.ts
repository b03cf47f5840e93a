// What a scenario hands `packetlab verify`: the harness scenario of its world (set-up, captures, traffic,
// observations) and how the comparator reads it, the same pair a test/linux case passes to differential().

import type { CompareOptions } from './compare.ts';
import type { Scenario } from './scenario.ts';

export interface KernelPlan {
  readonly scenario: Scenario;
  /** Known differences, NAT ports and tolerances, as the matching test/linux case declares them. */
  readonly compare?: CompareOptions;
  /** What the plan covers of the scenario's story, printed before the comparison (one line). */
  readonly covers: string;
}

/** A scenario's plan, or the usage line for arguments it has no plan for (exit 2). */
export type KernelPlanResult = KernelPlan | { readonly usage: string };
