// The inode numbers and socket cookies `ss -e` prints (ino:N sk:X), one counter of each per simulation.
//
// Linux numbers a socket's inode when the socket is created (get_next_ino) and gives it a cookie the
// first time someone asks (sock_gen_cookie, from a global counter). packetlab has no socket creation
// hook for its tools, so both are given the first time `ss` shows the socket, in the order it lists
// them, counting from 1: deterministic for a seed and a sequence of commands. A TIME-WAIT connection
// keeps its cookie, as inet_twsk_alloc copies it.

import type { Simulation } from '../../netns/simulation.ts';

interface Counters {
  nextIno: number;
  nextCookie: number;
  readonly ino: WeakMap<object, number>;
  readonly cookie: WeakMap<object, number>;
}

const bySimulation = new WeakMap<Simulation, Counters>();

function counters(sim: Simulation): Counters {
  let found = bySimulation.get(sim);
  if (found === undefined) {
    found = { nextIno: 1, nextCookie: 1, ino: new WeakMap(), cookie: new WeakMap() };
    bySimulation.set(sim, found);
  }
  return found;
}

/** The socket's inode number and cookie, given now if it has none yet. */
export function socketIdentity(sim: Simulation, socket: object): { ino: number; cookie: number } {
  const c = counters(sim);
  let ino = c.ino.get(socket);
  if (ino === undefined) {
    ino = c.nextIno++;
    c.ino.set(socket, ino);
  }
  let cookie = c.cookie.get(socket);
  if (cookie === undefined) {
    cookie = c.nextCookie++;
    c.cookie.set(socket, cookie);
  }
  return { ino, cookie };
}
