// `nc` as netcat-openbsd 1.219 (Debian 12's default nc) runs it: connect (TCP, UDP, -z port probes) in the
// foreground on the virtual clock, and listen (-l, -k) in the background through spawn(); see options.ts,
// client.ts and listen.ts for what each part models and leaves out.

import type { Namespace } from '../../netns/namespace.ts';
import type { CommandResult } from '../result.ts';
import { ncConnect } from './client.ts';
import { type NcListenerHandle, startNcListener } from './listen.ts';
import { parseNcOptions } from './options.ts';
import { waitFor } from './wait.ts';

export type { NcListenerHandle } from './listen.ts';

/** `nc ...` in the foreground: a client runs until done or timed out; a listener until its connection ends. */
export function nc(ns: Namespace, args: string[], stdin: string): CommandResult {
  const options = parseNcOptions(args);
  if (!('listen' in options)) return options;
  if (!options.listen) return ncConnect(ns, options, stdin);
  const listener = startNcListener(ns, options);
  if (!('stop' in listener)) return listener;
  waitFor(ns, () => listener.done, undefined);
  return listener.stop();
}

/** `nc -l ... &`: the listener keeps running while later commands do; stop() returns what it received. */
export function startNc(ns: Namespace, args: string[]): NcListenerHandle | CommandResult {
  const options = parseNcOptions(args);
  if (!('listen' in options)) return options;
  if (!options.listen)
    return { stdout: '', stderr: 'packetlab: nc runs in the background only with -l\n', exitCode: 2 };
  return startNcListener(ns, options);
}
