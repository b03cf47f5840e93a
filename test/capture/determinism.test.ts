// Same seed, same bytes: the all-frame-types capture built from a seeded Rng (addresses, ports,
// sequence numbers, payloads, timestamps) is byte-identical across builds, and differs across seeds.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LINKTYPE_ETHERNET, LINKTYPE_LINUX_SLL2, PcapWriter } from '../../src/capture/pcap.ts';
import { TcpdumpPrinter } from '../../src/capture/print.ts';
import { Rng } from '../../src/core/rng.ts';
import { toHex } from '../support/bytes.ts';
import { randomParams, sampleFrames, toSll2 } from '../support/frames.ts';
import { requireTool } from '../support/tools.ts';

interface Capture {
  readonly ethernet: Uint8Array;
  readonly sll2: Uint8Array;
  readonly times: number[];
}

/** Everything random comes from forks of one Rng: frame contents from one, timing from another. */
function buildCapture(seed: string): Capture {
  const rng = new Rng(seed);
  const frames = sampleFrames(randomParams(rng.fork('frames')));
  const timing = rng.fork('timing');
  const ethernet = new PcapWriter({ linkType: LINKTYPE_ETHERNET });
  const sll2 = new PcapWriter({ linkType: LINKTYPE_LINUX_SLL2 });
  const times: number[] = [];
  let now = 0;
  for (const sample of frames) {
    now += timing.intBetween(1, 2_000_000_000);
    times.push(now);
    ethernet.write(now, sample.frame);
    sll2.write(now, toSll2(sample.frame, sample.sll2));
  }
  return { ethernet: ethernet.bytes(), sll2: sll2.bytes(), times };
}

const dir = mkdtempSync(join(tmpdir(), 'packetlab-determinism-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('seeded captures', () => {
  it('are byte-identical when built twice from the same seed', () => {
    for (const seed of ['determinism', 'seed-2', '0']) {
      const first = buildCapture(seed);
      const second = buildCapture(seed);
      expect(toHex(second.ethernet)).toBe(toHex(first.ethernet));
      expect(toHex(second.sll2)).toBe(toHex(first.sll2));
    }
  });

  it('differ when the seed differs', () => {
    const captures = ['a', 'b', 'c', 'd'].map((seed) => toHex(buildCapture(seed).ethernet));
    expect(new Set(captures).size).toBe(captures.length);
    const sll2 = ['a', 'b'].map((seed) => toHex(buildCapture(seed).sll2));
    expect(sll2[0]).not.toBe(sll2[1]);
  });

  it('print the same lines in our printer as in the real tcpdump, whatever the seed', (ctx) => {
    if (!requireTool('tcpdump', ctx)) return;
    for (const seed of ['determinism', 'seed-2', 'seed-3']) {
      const capture = buildCapture(seed);
      const path = join(dir, `${seed}.pcap`);
      writeFileSync(path, capture.ethernet);
      const out = execFileSync('tcpdump', ['-nn', '-r', path], {
        encoding: 'utf8',
        env: { ...process.env, TZ: 'UTC' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const printer = new TcpdumpPrinter({ linkType: LINKTYPE_ETHERNET });
      const frames = sampleFrames(randomParams(new Rng(seed).fork('frames')));
      const ours = frames.map((sample, i) => printer.formatLine(capture.times[i]!, sample.frame)).join('\n');
      expect(ours).toBe(out.trimEnd());
    }
  });
});
