// curl's -w/--write-out format (tool_writeout.c) for the variables packetlab's curl fills: `%{name}`, `%%`, and the
// `\n`, `\r`, `\t` escapes; an unknown variable is reported on stderr and prints nothing. No `@file`, no
// `%{json}`, `%{header_json}`, `%{stderr}` or `%header{}`.

/** The values a finished transfer gives the variables (seconds as virtual-time floats), filled as it ends. */
export interface WriteOutValues {
  httpCode: number;
  remoteIp: string;
  remotePort: number;
  localIp: string;
  localPort: number;
  timeTotal: number;
  timeConnect: number;
  timeStartTransfer: number;
  /** Seconds getaddrinfo took (0 for an address or a cached name); every other time includes it. */
  timeNamelookup: number;
  sizeDownload: number;
  sizeHeader: number;
  sizeUpload: number;
  numConnects: number;
  exitCode: number;
  errorMessage: string;
  urlEffective: string;
  contentType: string;
  method: string;
  scheme: string;
}

function variable(name: string, v: WriteOutValues): string | undefined {
  switch (name) {
    case 'http_code':
    case 'response_code':
      return String(v.httpCode).padStart(3, '0');
    case 'remote_ip':
      return v.remoteIp;
    case 'remote_port':
      return String(v.remotePort);
    case 'local_ip':
      return v.localIp;
    case 'local_port':
      return String(v.localPort);
    case 'time_total':
      return v.timeTotal.toFixed(6);
    case 'time_connect':
      return v.timeConnect.toFixed(6);
    case 'time_starttransfer':
      return v.timeStartTransfer.toFixed(6);
    case 'time_namelookup':
      return v.timeNamelookup.toFixed(6);
    case 'time_pretransfer':
      return v.timeConnect.toFixed(6);
    case 'size_download':
      return String(v.sizeDownload);
    case 'size_header':
      return String(v.sizeHeader);
    case 'size_upload':
    case 'size_request':
      return String(v.sizeUpload);
    case 'num_connects':
      return String(v.numConnects);
    case 'exitcode':
      return String(v.exitCode);
    case 'errormsg':
      return v.errorMessage;
    case 'url_effective':
    case 'url':
      return v.urlEffective;
    case 'content_type':
      return v.contentType;
    case 'method':
      return v.method;
    case 'scheme':
      return v.scheme;
    default:
      return undefined;
  }
}

/** The expanded format, and curl's stderr lines for unknown variables. */
export function writeOut(format: string, values: WriteOutValues): { text: string; stderr: string } {
  let text = '';
  let stderr = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c === '%' && format[i + 1] === '%') {
      text += '%';
      i++;
    } else if (c === '%' && format[i + 1] === '{') {
      const close = format.indexOf('}', i + 2);
      if (close < 0) {
        text += format.slice(i);
        break;
      }
      const name = format.slice(i + 2, close);
      const value = variable(name, values);
      if (value === undefined) stderr += `curl: unknown --write-out variable: '${name}'\n`;
      else text += value;
      i = close;
    } else if (c === '\\' && i + 1 < format.length) {
      // A backslash and the next character go together: \n, \r, \t are escapes, any other pair is kept as is.
      const next = format[i + 1]!;
      text += next === 'n' ? '\n' : next === 'r' ? '\r' : next === 't' ? '\t' : c + next;
      i++;
    } else text += c;
  }
  return { text, stderr };
}
