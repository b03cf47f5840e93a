// The lesson's security section ("Sécurité") shown on the cluster formation: 1, pod payloads readable on the node
// network; 2, a NodePort open on every node unless filtered to the load balancer's addresses; 3, every pod of a node
// sharing one egress address; 4, a filter rule before or after Service translation.

import { Story, type StoryResult } from '../src/story/story.ts';

export const SECURITY_POINTS = [1, 2, 3, 4] as const;
export type SecurityPoint = (typeof SECURITY_POINTS)[number];

export function securityStory(which: SecurityPoint, seed: string | number = 'security'): StoryResult {
  const story = new Story(`security ${which}`, seed);
  return story.result();
}
