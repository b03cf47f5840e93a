// "Trace this packet through my node": the snapshot script, its reader, the rebuild in a simulation and the trace.

export { readSnapshot, type SnapshotFile, type SnapshotProblem, type SnapshotSection } from './format.ts';
export {
  formatPacketSpec,
  type PacketSpec,
  parsePacketSpec,
  traceFrame,
  traceRuleset,
} from './packet-spec.ts';
export { type RebuiltNode, rebuildNode, type Unsupported, WIRE } from './rebuild.ts';
export { formatRebuild, formatTrace } from './report.ts';
export { snapshotScript } from './script.ts';
export { type NodeSnapshot, nodeSnapshot } from './sections.ts';
export { movedCounters, type TraceReport, tracePacket } from './trace.ts';

import { readSnapshot } from './format.ts';
import { type NodeSnapshot, nodeSnapshot } from './sections.ts';

/** The snapshot file's text read into records (never throws; problems name their lines). */
export function loadSnapshot(text: string): NodeSnapshot {
  return nodeSnapshot(readSnapshot(text));
}
