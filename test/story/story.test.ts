// Story: steps and checks recorded in order, the transcript a terminal would show, PASS/FAIL lines.

import { describe, expect, it } from 'vitest';
import { Simulation } from '../../src/netns/simulation.ts';
import { checkLines, Story, transcript } from '../../src/story/story.ts';

describe('Story', () => {
  it('records narration, text and commands in order, and prints them as a session', () => {
    const sim = new Simulation({ seed: 1 });
    const ns = sim.addNamespace('n');
    const story = new Story('demo', 1);
    story.say('the loopback first');
    const result = story.run('$ ip netns exec n', ns, 'ip -br link');
    story.show('two\nlines');
    expect(result.exitCode).toBe(0);
    expect(transcript(story.result())).toEqual([
      '# the loopback first',
      '$ ip netns exec n ip -br link',
      'lo               DOWN           00:00:00:00:00:00 <LOOPBACK> ',
      'two',
      'lines',
    ]);
  });

  it('is ok only when every check passes, and says what failed', () => {
    const story = new Story('demo', 'seed');
    expect(story.expectEqual('ports', 64, 64)).toBe(true);
    expect(story.expectEqual('status', '200', 503)).toBe(false);
    expect(story.expectThat('mtu', 'at most 1450', '1500', false)).toBe(false);
    const result = story.result();
    expect(result.ok).toBe(false);
    expect(result.seed).toBe('seed');
    expect(checkLines(result)).toEqual([
      'PASS ports',
      'FAIL status: expected 200, got 503',
      'FAIL mtu: expected at most 1450, got 1500',
    ]);
  });

  it('keeps a failed command in the transcript with its error text', () => {
    const sim = new Simulation({ seed: 1 });
    const story = new Story('demo', 1);
    const result = story.run('#', sim.addNamespace('n'), 'ip link show nope');
    expect(result.exitCode).toBe(1);
    expect(story.result().steps[0]).toEqual({
      kind: 'command',
      prompt: '#',
      command: 'ip link show nope',
      output: 'Device "nope" does not exist.\n',
      exitCode: 1,
    });
  });

  it('tells narration in its language, English where a sentence has no translation, checks always in English', () => {
    const tell = (lang: 'en' | 'fr') => {
      const story = new Story('demo', 1, { lang });
      story.say('the bridge', { fr: 'le pont' });
      story.say('no translation yet');
      story.show(story.tell('access log:', { fr: "journal d'accès :" }));
      story.expectEqual('one check', 1, 1);
      return story.result();
    };
    expect(transcript(tell('en'))).toEqual(['# the bridge', '# no translation yet', 'access log:']);
    expect(transcript(tell('fr'))).toEqual(['# le pont', '# no translation yet', "journal d'accès :"]);
    expect(checkLines(tell('fr'))).toEqual(checkLines(tell('en')));
    expect(new Story('demo', 1).lang).toBe('en');
    const story = new Story('demo', 1);
    story.expectEqual('first', 1, 2);
    expect(story.checksSoFar.map((check) => `${check.name} ${check.pass}`)).toEqual(['first false']);
  });
});
