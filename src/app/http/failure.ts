// curl 7.88.1's exit code and error text for each way an HTTP exchange fails (lib/cf-socket.c, lib/connect.c,
// lib/transfer.c, lib/http.c, lib/http_chunks.c), as measured with Debian 12's curl against a local server;
// the errno texts are glibc's strerror.

import { strerror } from '../../core/errno.ts';
import type { HttpFailure, HttpResult } from './client.ts';

/** curl's exit code (CURLcode) for a failure; 0 for none. */
export function curlExitCode(failure: HttpFailure | undefined): number {
  if (failure === undefined) return 0;
  switch (failure.kind) {
    case 'connect':
      return 7; // CURLE_COULDNT_CONNECT
    case 'connect-timeout':
    case 'timeout':
      return 28; // CURLE_OPERATION_TIMEDOUT
    case 'empty-reply':
      return 52; // CURLE_GOT_NOTHING
    case 'recv':
    case 'bad-chunk':
      return 56; // CURLE_RECV_ERROR
    case 'partial':
      return 18; // CURLE_PARTIAL_FILE
    case 'http09':
    case 'unsupported-version':
    case 'bad-status-code':
      return 1; // CURLE_UNSUPPORTED_PROTOCOL
    case 'weird':
    case 'header-without-colon':
      return 8; // CURLE_WEIRD_SERVER_REPLY
    default:
      return unreachable(failure);
  }
}

/** How curl names the peer in its messages: the host as given in the URL, and the port. */
export interface CurlPeer {
  readonly host: string;
  readonly port: number;
}

function elapsedMs(result: HttpResult): number {
  return Math.floor((result.endNs - result.startNs) / 1e6);
}

/** The text after `curl: (N) ` (and in %{errormsg}); empty for success. */
export function curlErrorText(result: HttpResult, peer: CurlPeer): string {
  const failure = result.failure;
  if (failure === undefined) return '';
  const ms = elapsedMs(result);
  switch (failure.kind) {
    case 'connect':
      return `Failed to connect to ${peer.host} port ${peer.port} after ${ms} ms: Couldn't connect to server`;
    case 'connect-timeout':
      return failure.byMaxTime
        ? `Connection timed out after ${ms} milliseconds`
        : `Failed to connect to ${peer.host} port ${peer.port} after ${ms} ms: Timeout was reached`;
    case 'timeout':
      return result.expectedBytes >= 0
        ? `Operation timed out after ${ms} milliseconds with ${result.bodyBytes} out of ${result.expectedBytes} bytes received`
        : `Operation timed out after ${ms} milliseconds with ${result.bodyBytes} bytes received`;
    case 'empty-reply':
      return 'Empty reply from server';
    case 'recv':
      return `Recv failure: ${strerror(failure.errno)}`;
    case 'bad-chunk':
      return 'Illegal or missing hexadecimal sequence in chunked-encoding';
    case 'partial':
      return result.expectedBytes >= 0
        ? `transfer closed with ${result.expectedBytes - result.bodyBytes} bytes remaining to read`
        : 'transfer closed with outstanding read data remaining';
    case 'http09':
      return 'Received HTTP/0.9 when not allowed';
    case 'unsupported-version':
      return `Unsupported HTTP version (${failure.version}) in response`;
    case 'bad-status-code':
      return 'Unsupported response code in HTTP response';
    case 'weird':
      return 'Weird server reply';
    case 'header-without-colon':
      return 'Header without colon';
    default:
      return unreachable(failure);
  }
}

/**
 * The verbose line curl prints before the error itself, if any: the connect() errno
 * (`connect to H port P failed: Connection refused`, or `Immediate connect fail for ADDR: ...`)
 * or the connect timeout's `ipv4 connect timeout after Nms, move on!`.
 */
export function curlFailureDetail(
  result: HttpResult,
  peer: CurlPeer,
  addr: string,
  connectTimeoutMs: number,
): string | undefined {
  const failure = result.failure;
  if (failure?.kind === 'connect')
    return failure.immediate
      ? `Immediate connect fail for ${addr}: ${strerror(failure.errno)}`
      : `connect to ${addr} port ${peer.port} failed: ${strerror(failure.errno)}`;
  if (failure?.kind === 'connect-timeout' && !failure.byMaxTime)
    return `ipv4 connect timeout after ${connectTimeoutMs}ms, move on!`;
  return undefined;
}

function unreachable(value: never): never {
  throw new Error(`unhandled failure ${JSON.stringify(value)}`);
}
