import { describe, expect, it } from 'vitest';
import { formatLayers } from '../../src/capture/layers.ts';
import { formatFrame } from '../../src/capture/print.ts';
import { sampleFrames } from '../support/frames.ts';

describe('formatLayers', () => {
  const frames = sampleFrames();

  it('splits every sample frame into its Ethernet line and the lines tcpdump prints without -e', () => {
    for (const { frame } of frames) {
      const layers = formatLayers(frame);
      const plain = formatFrame(frame, { linkType: 1 }).split('\n');
      expect(layers[0]).toMatch(/^Ethernet [0-9a-f:]{17} > [0-9a-f:]{17}, (ethertype|802\.1Q)/);
      for (const line of plain) expect(layers).toContain(line);
    }
  });

  it('gives a VXLAN frame an Ethernet line for the outer and for the inner frame', () => {
    const vxlan = frames.find(({ name }) => name.includes('VXLAN'));
    if (vxlan === undefined) throw new Error('no VXLAN sample');
    const layers = formatLayers(vxlan.frame);
    expect(layers.filter((line) => line.startsWith('Ethernet '))).toHaveLength(2);
    expect(layers.some((line) => / > .*\.(8472|4789): (OTV|VXLAN)/.test(line))).toBe(true);
    expect(layers[layers.length - 1]).toMatch(/^IP .* Flags/);
  });
});
