import { describe, expect, test } from 'vitest';
import { kubeAge, unitsHumanDuration } from '../../../src/k8s/commands/durations.ts';
import { formatTable, KUBECTL_TABLE } from '../../../src/k8s/commands/table.ts';

const S = 1e9;
const H = 3600 * S;

describe('kubeAge (apimachinery duration.HumanDuration, cases of duration_test.go)', () => {
  test.each([
    [1 * S, '1s'],
    [70 * S, '70s'],
    [190 * S, '3m10s'],
    [120 * S, '2m'],
    [70 * 60 * S, '70m'],
    [47 * H, '47h'],
    [5 * H + 30 * 60 * S, '5h30m'],
    [49 * H, '2d1h'],
    [(8 * 24 + 2) * H, '8d'],
    [367 * 24 * H, '367d'],
    [(365 * 2 * 24 + 25) * H, '2y1d'],
    [(365 * 8 * 24 + 2) * H, '8y'],
    [-0.5 * S, '0s'],
    [-3 * S, '<invalid>'],
  ])('%d ns is %s', (ns, text) => {
    expect(kubeAge(ns)).toBe(text);
  });
});

describe('unitsHumanDuration (docker/go-units HumanDuration)', () => {
  test.each([
    [0.5 * S, 'Less than a second'],
    [1 * S, '1 second'],
    [5 * S, '5 seconds'],
    [75 * S, 'About a minute'],
    [47 * 60 * S, '47 minutes'],
    [60 * 60 * S, 'About an hour'],
    [47 * H, '47 hours'],
    [48 * H, '2 days'],
    [15 * 24 * H, '2 weeks'],
    [3 * 30 * 24 * H, '3 months'],
    [3 * 365 * 24 * H, '3 years'],
  ])('%d ns is %s', (ns, text) => {
    expect(unitsHumanDuration(ns)).toBe(text);
  });
});

test('tabwriter: widest cell plus padding, minwidth, last column unpadded', () => {
  expect(
    formatTable(
      [
        ['NAME', 'IP', 'AGE'],
        ['a', '10.0.0.1', '5s'],
      ],
      KUBECTL_TABLE,
    ),
  ).toBe('NAME   IP         AGE\na      10.0.0.1   5s\n');
});
