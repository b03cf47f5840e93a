// net.ipv4.ip_local_reserved_ports' text form (proc_do_large_bitmap): a comma-separated list of ports and ranges;
// no other bitmap sysctl uses it here.

/**
 * `ip_local_reserved_ports` as the kernel keeps it (a bitmap, proc_do_large_bitmap): parsed from
 * `8080,9000-9100`, printed as sorted, merged ranges (`1,2,3,5` reads back `1-3,5`).
 */
export function parseReservedPorts(text: string): string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return '';
  const ports = new Uint8Array(65536);
  for (const item of trimmed.split(',')) {
    const range = /^(\d+)(?:-(\d+))?$/.exec(item);
    if (range === null) return undefined;
    const first = Number(range[1]);
    const last = range[2] === undefined ? first : Number(range[2]);
    if (first > 65535 || last > 65535 || last < first) return undefined;
    ports.fill(1, first, last + 1);
  }
  const parts: string[] = [];
  for (let port = 0; port < 65536; port++) {
    if (ports[port] === 0) continue;
    let end = port;
    while (end + 1 < 65536 && ports[end + 1] === 1) end++;
    parts.push(end === port ? `${port}` : `${port}-${end}`);
    port = end;
  }
  return parts.join(',');
}
