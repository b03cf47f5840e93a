// `packetlab sweep ... --k8s-job`: a Kubernetes Indexed Job (batch/v1, completionMode Indexed) whose pod number I of
// N runs `packetlab sweep SCENARIO ARGS --seeds A..B --shards N`; the sweep reads I from JOB_COMPLETION_INDEX, the
// variable the Job controller sets in every container of an Indexed Job's pod, and prints that shard's lines on
// stdout (kubectl logs), which `packetlab sweep merge` joins. The image must have `packetlab` on its PATH; a user's
// scenario file must be in the image at the path given. No volumes, no resource requests (the user's to add).

export interface JobRequest {
  readonly name: string;
  readonly image: string;
  readonly shards: number;
  readonly parallelism: number;
  /** The sweep's own words for one shard: `SCENARIO ARGS... --seeds A..B [--metric M] [--workers K]`. */
  readonly sweepWords: readonly string[];
}

/** A DNS-1123 label from a scenario name or file: lower case, [a-z0-9-], at most 63 characters. */
export function jobName(target: string): string {
  const base = target
    .replace(/^.*\//, '')
    .replace(/\.[a-z]+$/i, '')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `packetlab-sweep-${base || 'file'}`.slice(0, 63).replace(/-+$/, '');
}

/** The Job as a plain object (printed as YAML by the command). */
export function indexedJob(request: JobRequest): Record<string, unknown> {
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: request.name, labels: { 'app.kubernetes.io/name': 'packetlab-sweep' } },
    spec: {
      completionMode: 'Indexed',
      completions: request.shards,
      parallelism: request.parallelism,
      // A shard whose seeds fail still exits 0 (failures are lines); a retry is for a crashed pod only.
      backoffLimit: request.shards,
      template: {
        metadata: { labels: { 'app.kubernetes.io/name': 'packetlab-sweep' } },
        spec: {
          restartPolicy: 'Never',
          containers: [
            {
              name: 'sweep',
              image: request.image,
              command: ['packetlab'],
              args: ['sweep', ...request.sweepWords, '--shards', String(request.shards)],
              env: [{ name: 'NO_COLOR', value: '1' }],
            },
          ],
        },
      },
    },
  };
}
