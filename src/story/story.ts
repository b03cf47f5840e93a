// A scenario's story as it runs: what it says, each command with where it ran and what it printed, and the checks
// that prove its point (name, expected, actual, pass). The `packetlab run` command prints it as a transcript or as
// one JSON object; tests assert its checks. It records; it runs nothing by itself beyond the commands it is given.
// Narration is told in the story's language (English, or French with `--lang fr`): `say(en, { fr })`; checks stay in
// English in every language, so a run's checks compare across languages.

import type { Namespace } from '../netns/namespace.ts';
import type { Simulation } from '../netns/simulation.ts';
import { type CommandResult, exec } from '../tools/exec.ts';
import { type Recorder, type StoryRecording, startRecorder } from './recorder.ts';

/** The languages a story can be told in; every sentence has its English, the others fall back to it. */
export const LANGS = ['en', 'fr'] as const;
export type Lang = (typeof LANGS)[number];

/** A sentence in the languages other than English; one left out is told in English. */
export interface Translations {
  readonly fr?: string;
}

export interface StoryOptions {
  /** The language of the narration (say, tell); English when left out. */
  readonly lang?: Lang;
}

export type StoryStep =
  /** Narration: what happens to the packet, in the story's words. */
  | { readonly kind: 'say'; readonly text: string }
  /** Text shown as it is (decoded frames, an access log, a report). */
  | { readonly kind: 'output'; readonly text: string }
  /** A command as a terminal shows it: the prompt (`$ docker exec formation-worker`), the line, what it printed. */
  | {
      readonly kind: 'command';
      readonly prompt: string;
      readonly command: string;
      readonly output: string;
      readonly exitCode: number;
    };

export interface StoryCheck {
  readonly name: string;
  readonly expected: string;
  readonly actual: string;
  readonly pass: boolean;
}

/** What `packetlab run --json` prints (docs/story.schema.json). */
export interface StoryResult {
  readonly scenario: string;
  readonly seed: string;
  readonly ok: boolean;
  readonly steps: readonly StoryStep[];
  readonly checks: readonly StoryCheck[];
}

export class Story {
  private readonly steps: StoryStep[] = [];
  private readonly checks: StoryCheck[] = [];
  private simulation: Simulation | undefined;
  private recorder: Recorder | undefined;
  /** The language narration is told in. */
  readonly lang: Lang;

  constructor(
    readonly scenario: string,
    readonly seed: string | number,
    options: StoryOptions = {},
  ) {
    this.lang = options.lang ?? 'en';
  }

  /**
   * Tells the story which simulation it narrates: from here to result(), the recorders `packetlab run` asked for
   * (--pcap, --trace, --mermaid, --metrics) watch it. One simulation per story.
   */
  attach(sim: Simulation): this {
    if (this.simulation === sim) return this;
    if (this.simulation !== undefined)
      throw new Error(`story ${this.scenario}: already attached to a simulation`);
    this.simulation = sim;
    this.recorder = startRecorder(this.scenario, sim);
    return this;
  }

  /** The checks declared so far, in order (a story may say how its points went before its end). */
  get checksSoFar(): readonly StoryCheck[] {
    return this.checks;
  }

  /** The simulation given to attach(), if any. */
  get sim(): Simulation | undefined {
    return this.simulation;
  }

  /** Narration, in the story's language: `say('the bridge', { fr: 'le pont' })`. */
  say(text: string, translations: Translations = {}): void {
    this.flushTrace();
    this.steps.push({ kind: 'say', text: this.tell(text, translations) });
  }

  /** A sentence in the story's language (its translation, else the English), to compose into a step. */
  tell(text: string, translations: Translations = {}): string {
    return this.lang === 'en' ? text : (translations[this.lang] ?? text);
  }

  /** Shows text as it is, one step per call. */
  show(text: string): void {
    this.flushTrace();
    this.steps.push({ kind: 'output', text });
  }

  /** Runs a command in a namespace through the façade and records it after a prompt (`$ kubectl exec diag --`). */
  run(prompt: string, ns: Namespace, line: string, options: { readonly stdin?: string } = {}): CommandResult {
    this.flushTrace();
    const result = exec(ns, line, options.stdin === undefined ? {} : { stdin: options.stdin });
    this.record(prompt, line, result);
    return result;
  }

  /** Records a command run some other way (a spawned capture stopped later), with its output in terminal order. */
  record(
    prompt: string,
    command: string,
    result: CommandResult,
    output = `${result.stdout}${result.stderr}`,
  ): void {
    this.steps.push({ kind: 'command', prompt, command, output, exitCode: result.exitCode });
    this.flushTrace();
  }

  /** A check that passes when `actual` equals `expected` (compared as text). */
  expectEqual(name: string, expected: string | number | boolean, actual: string | number | boolean): boolean {
    return this.expectThat(name, String(expected), String(actual), String(expected) === String(actual));
  }

  /** A check whose pass is decided by the caller (`expected` says in words what was required). */
  expectThat(name: string, expected: string, actual: string, pass: boolean): boolean {
    this.checks.push({ name, expected, actual, pass });
    return pass;
  }

  /** What the recorders saw, ending them; undefined when the run asked for none (or nothing was attached). */
  recording(): StoryRecording | undefined {
    this.flushTrace();
    return this.recorder?.finish();
  }

  /** The story so far; the recorders stop here (the end of what --pcap and --metrics cover). */
  result(): StoryResult {
    this.recording();
    return {
      scenario: this.scenario,
      seed: String(this.seed),
      ok: this.checks.every((check) => check.pass),
      steps: [...this.steps],
      checks: [...this.checks],
    };
  }

  /** The trace lines printed since the last step, as one step of text (--trace). */
  private flushTrace(): void {
    const recorder = this.recorder;
    if (recorder === undefined) return;
    recorder.observe();
    const lines = recorder.takeTraceLines();
    if (lines.length > 0) this.steps.push({ kind: 'output', text: lines.join('\n') });
  }
}

/** The story as a terminal session: narration as `# ...`, text as it is, each command after its prompt, then its output. */
export function transcript(result: StoryResult): string[] {
  const lines: string[] = [];
  for (const step of result.steps) {
    switch (step.kind) {
      case 'say':
        lines.push(`# ${step.text}`);
        break;
      case 'output':
        lines.push(...step.text.split('\n'));
        break;
      case 'command': {
        lines.push(`${step.prompt} ${step.command}`);
        const output = step.output.replace(/\n+$/, '');
        if (output !== '') lines.push(...output.split('\n'));
        break;
      }
      default: {
        const never: never = step;
        throw new Error(`unknown step ${JSON.stringify(never)}`);
      }
    }
  }
  return lines;
}

/** One line per check: `PASS name` or `FAIL name: expected E, got A`. */
export function checkLines(result: StoryResult): string[] {
  return result.checks.map((check) =>
    check.pass ? `PASS ${check.name}` : `FAIL ${check.name}: expected ${check.expected}, got ${check.actual}`,
  );
}
