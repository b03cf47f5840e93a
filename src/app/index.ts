// Applications on a namespace's sockets: an HTTP/1.1 server and client, curl's error semantics, a load generator,
// a UDP echo, a DNS server and glibc's stub resolver.

export { parseResolvConf, podResolvConf, readResolvConf, writeResolvConf } from './dns/resolv-conf.ts';
export {
  type Lookup,
  type LookupError,
  type LookupResult,
  lookupHost,
  type ResolverOptions,
  type SentQuery,
} from './dns/resolver.ts';
export { type DnsServer, type DnsServerOptions, type DnsServerStats, dnsServer } from './dns/server.ts';
export { type UdpEchoOptions, type UdpEchoServer, type UdpEchoStats, udpEcho } from './echo/udp-echo.ts';
export {
  type HttpExchange,
  type HttpFailure,
  type HttpRequestOptions,
  type HttpResult,
  type HttpTrace,
  httpGet,
  httpRequest,
} from './http/client.ts';
export { curlErrorText, curlExitCode } from './http/failure.ts';
export type { HeaderField } from './http/message.ts';
export {
  type AccessRecord,
  formatAccessLine,
  type HttpDynamicReply,
  type HttpRoute,
  type HttpServer,
  type HttpServerOptions,
  type HttpServerStats,
  httpServer,
} from './http/server.ts';
export { type LoadGenerator, type LoadOptions, loadGenerator } from './load/generator.ts';
export { formatLoadReport, type LatencySummary, type LoadReport } from './load/report.ts';
