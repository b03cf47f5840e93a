// Stories: how a scenario narrates, runs its commands and declares its checks.

export { frameLabel, MermaidRecorder } from './mermaid.ts';
export { MetricsSampler } from './metrics.ts';
export { type RecordOptions, recordStories, type StoryRecording } from './recorder.ts';
export {
  checkLines,
  LANGS,
  type Lang,
  Story,
  type StoryCheck,
  type StoryOptions,
  type StoryResult,
  type StoryStep,
  type Translations,
  transcript,
} from './story.ts';
