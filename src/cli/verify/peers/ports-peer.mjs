// The kernel side of the harness's local-port step, run with `ip netns exec NS node ports-peer.mjs ...`: many
// connections from one process, so the ports connect() and bind() pick can be watched (bounded counts and timeouts,
// so it always ends).
//
//   serve PORTS LIFETIME_MS   listens on 0.0.0.0 at each comma-separated port, accepts everything, ends a connection
//                             when its client does; prints "ready" once listening
//   run SCRIPT_JSON           runs the actions of a ports step (scenario.ts, PortsAction) in order
// Lines printed by `run` are raw (`connect 8080 port 40062`); ports-lines.ts turns them into what both sides compare.

import dgram from 'node:dgram';
import { writeFileSync } from 'node:fs';
import net from 'node:net';

const [mode, ...args] = process.argv.slice(2);

if (mode === 'serve') {
  const [portsText, lifetimeText] = args;
  let listening = 0;
  const ports = portsText.split(',').map(Number);
  for (const port of ports) {
    const server = net.createServer((socket) => {
      socket.on('error', () => {});
      socket.resume();
    });
    server.listen({ host: '0.0.0.0', port, backlog: 4096 }, () => {
      listening++;
      if (listening === ports.length) console.log('ready');
    });
  }
  setTimeout(() => process.exit(0), Number(lifetimeText)).unref();
} else if (mode === 'run') {
  const actions = JSON.parse(args[0]);
  const open = [];

  /** One connect(): its port once connected, or the error connect() (or the handshake) gave. */
  const connectOnce = (dst, port, timeoutMs) =>
    new Promise((resolve) => {
      const socket = net.connect({ host: dst, port });
      const timer = setTimeout(() => {
        socket.destroy();
        resolve('error timeout');
      }, timeoutMs);
      socket.on('connect', () => {
        clearTimeout(timer);
        open.push(socket);
        resolve(`port ${socket.localPort}`);
      });
      socket.on('error', (error) => {
        clearTimeout(timer);
        resolve(`error ${error.code ?? error.message}`);
      });
    });

  const closeAll = () =>
    Promise.all(
      open.splice(0).map(
        (socket) =>
          new Promise((resolve) => {
            socket.on('close', resolve);
            socket.end();
          }),
      ),
    );

  const listenZero = () =>
    new Promise((resolve) => {
      const server = net.createServer();
      server.on('error', (error) => resolve(`error ${error.code ?? error.message}`));
      server.listen({ host: '0.0.0.0', port: 0 }, () => {
        const { port } = server.address();
        server.close(() => resolve(`port ${port}`));
      });
    });

  const bindUdp = () =>
    new Promise((resolve) => {
      const socket = dgram.createSocket('udp4');
      socket.on('error', (error) => {
        socket.close();
        resolve(`error ${error.code ?? error.message}`);
      });
      socket.bind({ address: '0.0.0.0', port: 0 }, () => resolve(`port ${socket.address().port}`));
    });

  for (const action of actions) {
    switch (action.kind) {
      case 'connect':
        for (let i = 0; i < action.count; i++)
          console.log(
            `connect ${action.port} ${await connectOnce(action.dst, action.port, action.timeoutMs)}`,
          );
        break;
      case 'close':
        console.log(`closed ${open.length}`);
        await closeAll();
        break;
      case 'listen0':
        console.log(`listen0 ${await listenZero()}`);
        break;
      case 'udp0':
        for (let i = 0; i < action.count; i++) console.log(`udp0 ${await bindUdp()}`);
        break;
      case 'sysctl':
        writeFileSync(`/proc/sys/${action.key.replaceAll('.', '/')}`, action.value);
        break;
      case 'wait':
        await new Promise((resolve) => setTimeout(resolve, action.ms));
        break;
      default:
        throw new Error(`unknown action ${action.kind}`);
    }
  }
  await closeAll();
  process.exit(0);
}
