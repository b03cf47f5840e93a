// The two ways the node and pod commands print an age: kubectl's AGE column (apimachinery duration.HumanDuration) and
// crictl's CREATED column (docker/go-units HumanDuration + " ago"), from virtual nanoseconds.

const NS_PER_SECOND = 1_000_000_000;

/** mirrors k8s.io/apimachinery/pkg/util/duration.HumanDuration: `45s`, `2m5s`, `10m`, `3h4m`, `9h`, `2d3h`, `30d`, `2y5d`. */
export function kubeAge(elapsedNs: number): string {
  const seconds = Math.trunc(elapsedNs / NS_PER_SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** mirrors github.com/docker/go-units HumanDuration: `Less than a second`, `5 seconds`, `About a minute`, `3 hours`. */
export function unitsHumanDuration(elapsedNs: number): string {
  const seconds = Math.trunc(elapsedNs / NS_PER_SECOND);
  if (seconds < 1) return 'Less than a second';
  if (seconds === 1) return '1 second';
  if (seconds < 60) return `${seconds} seconds`;
  const minutes = Math.trunc(elapsedNs / (60 * NS_PER_SECOND));
  if (minutes === 1) return 'About a minute';
  if (minutes < 60) return `${minutes} minutes`;
  const hours = Math.trunc(elapsedNs / (3600 * NS_PER_SECOND) + 0.5);
  if (hours === 1) return 'About an hour';
  if (hours < 48) return `${hours} hours`;
  if (hours < 24 * 7 * 2) return `${Math.trunc(hours / 24)} days`;
  if (hours < 24 * 30 * 2) return `${Math.trunc(hours / 24 / 7)} weeks`;
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24 / 30)} months`;
  return `${Math.trunc(Math.trunc(elapsedNs / (3600 * NS_PER_SECOND)) / 24 / 365)} years`;
}

/** RFC 3339 with nanoseconds as Go's time.Format(time.RFC3339Nano) prints a UTC time (trailing zeros dropped). */
export function rfc3339Nano(epochMs: number, virtualNs: number): string {
  const totalNs = BigInt(Math.trunc(epochMs)) * 1_000_000n + BigInt(Math.trunc(virtualNs));
  const seconds = totalNs / 1_000_000_000n;
  const fraction = totalNs % 1_000_000_000n;
  const date = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  const digits = fraction === 0n ? '' : `.${fraction.toString().padStart(9, '0').replace(/0+$/, '')}`;
  return `${date}${digits}Z`;
}
