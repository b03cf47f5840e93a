// Each scenario's shell world opens on its machines and answers the command its banner suggests; the incident's opens
// broken (NodePort 30080 times out on formation-worker, answers on formation-worker2); bad variant words are a usage.

import { describe, expect, it } from 'vitest';
import { SCENARIOS } from '../../scenarios/index.ts';
import { ShellSession, type ShellWorld } from '../../src/story/shell-session.ts';

function open(name: string, args: string[] = []): ShellSession {
  const entry = SCENARIOS.find((candidate) => candidate.name === name);
  const world = entry?.shell?.({ seed: undefined, args });
  if (world === undefined || 'usage' in world) throw new Error(`${name}: no shell`);
  return new ShellSession(world as ShellWorld);
}

/** The banner's `Try: COMMAND.` suggestion. */
function suggestion(session: ShellSession): string {
  const match = /Try: ([^,]+?)(?:, |\. )/.exec(session.world.banner);
  if (match === null) throw new Error(`no suggestion in ${session.world.banner}`);
  return match[1]!;
}

describe('the scenarios’ shells', () => {
  it.each([
    ['veth', [], '2 packets transmitted, 2 received'],
    ['lesson', ['routed', 'direct'], '1 packets transmitted, 1 received'],
    ['traffic', [], 'ok\n'],
    ['lesson-case', ['3', 'flannel-vxlan', 'nftables'], 'signalements-7d9f-a'],
  ])('%s %j answers the command its banner suggests', (name, args, expected) => {
    const session = open(name, args);
    const ran = session.runToEnd(suggestion(session));
    expect(ran.exitCode).toBe(0);
    expect(ran.text).toContain(expected);
  });

  it('opens the incident broken: the NodePort times out on formation-worker and answers on formation-worker2', () => {
    const session = open('incident');
    expect(session.runToEnd('curl -s -m 2 http://172.18.0.3:30080/sante')).toMatchObject({
      exitCode: 28,
      text: '',
    });
    expect(session.runToEnd('curl -s -m 2 http://172.18.0.4:30080/sante')).toMatchObject({
      exitCode: 0,
      text: 'ok signalements-7d9f-a\n',
    });
    expect(
      session.runToEnd('docker exec formation-worker nft list chain inet netbird forward-mark').text,
    ).toContain('meta mark set 0x00010000');
  });

  it('gives every shell its own usage for bad variant words', () => {
    const usages = SCENARIOS.filter((entry) => entry.shell !== undefined).map((entry) => {
      const opened = entry.shell!({ seed: undefined, args: ['nope', 'nope', 'nope', 'nope'] });
      return 'usage' in opened ? opened.usage.split(' ').slice(0, 4).join(' ') : 'opened';
    });
    expect(usages).toEqual([
      'usage: packetlab shell tour',
      'usage: packetlab shell veth',
      'usage: packetlab shell lesson',
      'usage: packetlab shell lesson-case',
      'usage: packetlab shell incident',
      'usage: packetlab shell traffic',
    ]);
  });
});
