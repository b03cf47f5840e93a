// Stories: how a scenario narrates, runs its commands and declares its checks.

export { checkLines, Story, type StoryCheck, type StoryResult, type StoryStep, transcript } from './story.ts';
