// glibc's strerror(3) texts for the errnos packetlab's kernel and tools report, written once; no locales.

/** glibc 2.36's message for each errno name packetlab uses (Linux numbering, English locale). */
const STRERROR_TEXT = {
  EPERM: 'Operation not permitted',
  ENOENT: 'No such file or directory',
  ESRCH: 'No such process',
  EAGAIN: 'Resource temporarily unavailable',
  EACCES: 'Permission denied',
  EBUSY: 'Device or resource busy',
  EEXIST: 'File exists',
  ENFILE: 'Too many open files in system',
  ENODEV: 'No such device',
  EINVAL: 'Invalid argument',
  EPIPE: 'Broken pipe',
  ELOOP: 'Too many levels of symbolic links',
  ENONET: 'Machine is not on the network',
  EMSGSIZE: 'Message too long',
  ENOPROTOOPT: 'Protocol not available',
  EOPNOTSUPP: 'Operation not supported',
  EADDRINUSE: 'Address already in use',
  EADDRNOTAVAIL: 'Cannot assign requested address',
  ENETDOWN: 'Network is down',
  ENETUNREACH: 'Network is unreachable',
  ECONNRESET: 'Connection reset by peer',
  ENOBUFS: 'No buffer space available',
  ETIMEDOUT: 'Connection timed out',
  ECONNREFUSED: 'Connection refused',
  EHOSTDOWN: 'Host is down',
  EHOSTUNREACH: 'No route to host',
  EINPROGRESS: 'Operation now in progress',
} as const;

/** An errno name packetlab knows the text of. */
export type ErrnoName = keyof typeof STRERROR_TEXT;

/** strerror(errno): glibc's text, or the name itself for an errno packetlab has no text for. */
export function strerror(errno: string): string {
  return (STRERROR_TEXT as Readonly<Record<string, string>>)[errno] ?? errno;
}
