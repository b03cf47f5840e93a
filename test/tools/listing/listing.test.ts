// Replays the session captured from the real kernel and iproute2 (session.json, made by capture.ts from steps.ts)
// on packetlab, step by step, and compares stdout, stderr and exit code.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Namespace } from '../../../src/netns/namespace.ts';
import { Simulation } from '../../../src/netns/simulation.ts';
import { exec } from '../../../src/tools/exec.ts';
import { NAMESPACES } from './steps.ts';

interface Recorded {
  readonly ns?: 'a' | 'b' | 'c';
  readonly cmd?: string;
  readonly compare?: 'exact' | 'sorted-lines' | 'exit-code';
  readonly sleepSeconds?: number;
  readonly stdout?: string;
  readonly stderr?: string;
  readonly exitCode?: number;
}

const fixture = JSON.parse(readFileSync(join(import.meta.dirname, 'session.json'), 'utf8')) as {
  captured: string;
  steps: Recorded[];
};

/**
 * What packetlab prints differently by design, applied to the real output: the capture
 * host had 2 CPUs (veth numtxqueues 2; packetlab models one), and bridge timers ran there
 * (packetlab prints them at 0.00).
 */
function normalise(text: string): string {
  return text
    .replaceAll('numtxqueues 2 numrxqueues 2', 'numtxqueues 1 numrxqueues 1')
    .replace(/(_timer) +\d+\.\d\d/g, '$1    0.00');
}

function sortedLines(text: string): string[] {
  return text.split('\n').sort();
}

describe(`the listing session replays as captured (${fixture.captured})`, () => {
  const sim = new Simulation({ seed: 'listing' });
  const namespaces: Record<string, Namespace> = {};
  for (const [key, name] of Object.entries(NAMESPACES)) namespaces[key] = sim.addNamespace(name);
  let index = 0;
  for (const step of fixture.steps) {
    index++;
    if (step.sleepSeconds !== undefined) {
      it(`#${index} sleep ${step.sleepSeconds}`, () => sim.run(step.sleepSeconds! * 1e9));
      continue;
    }
    it(`#${index} [${step.ns}] ${step.cmd}`, () => {
      const result = exec(namespaces[step.ns!]!, step.cmd!);
      switch (step.compare ?? 'exact') {
        case 'exit-code':
          expect(result.exitCode).toBe(step.exitCode);
          break;
        case 'sorted-lines':
          expect({ ...result, stdout: sortedLines(result.stdout) }).toEqual({
            stdout: sortedLines(step.stdout!),
            stderr: step.stderr,
            exitCode: step.exitCode,
          });
          break;
        case 'exact':
          expect(result).toEqual({
            stdout: normalise(step.stdout!),
            stderr: step.stderr,
            exitCode: step.exitCode,
          });
          break;
      }
    });
  }
});
