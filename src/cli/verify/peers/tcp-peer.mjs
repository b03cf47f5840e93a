// One end of the harness's TCP exchange on the real kernel, run with `ip netns exec NS node tcp-peer.mjs ...`:
// fixed ports, a bounded number of messages and timeouts, so it always ends. Node's defaults otherwise (no
// TCP_NODELAY, SO_REUSEADDR on the listener, allowHalfOpen off: the server ends when the client does).
//
//   serve BIND PORT TIMEOUT_MS [READ_AFTER_MS]
//                                       accepts one connection, echoes every chunk, prints "ready" once listening; with
//                                       READ_AFTER_MS (a bulk transfer) it does not echo, reads nothing before that many ms
//                                       after its accept (pauseOnConnect), prints the bytes read at the end and ends too
//   send  BIND PORT DST DST_PORT COUNT PAYLOAD TIMEOUT_MS [BYTES [KEEPALIVE_MS IDLE_MS]]
//                                       connects (from an ephemeral port when PORT is 0), sends "PAYLOAD i" for i = 1..COUNT, each after the previous
//                                       echo or its timeout, then ends the connection; with BYTES, writes that many 'x' at once and ends;
//                                       with KEEPALIVE_MS IDLE_MS (BYTES empty), setKeepAlive(true, KEEPALIVE_MS) and IDLE_MS idle before the end
// Every other line printed is what the harness compares with packetlab's side (observed.ts, tcpLines).

import net from 'node:net';

const [mode, bind, portText, ...rest] = process.argv.slice(2);
const port = Number(portText);
/** How long a bulk client waits after connecting before it writes (packetlab-tcp.ts waits as long). */
const BULK_DELAY_MS = 100;
const show = (value) => JSON.stringify(value.toString('latin1'));

if (mode === 'serve') {
  const timeoutMs = Number(rest[0]);
  const bulk = rest[1] !== undefined;
  const server = net.createServer({ pauseOnConnect: bulk }, (socket) => {
    console.log(`accept ${socket.remoteAddress}:${socket.remotePort}`);
    server.close();
    let read = 0;
    if (bulk) setTimeout(() => socket.resume(), Number(rest[1]));
    socket.on('data', (data) => {
      if (bulk) {
        read += data.length;
        return;
      }
      console.log(`data ${show(data)}`);
      socket.write(data);
    });
    socket.on('end', () => {
      if (bulk) console.log(`read ${read} bytes`);
      console.log('end');
    });
    socket.on('error', (error) => console.log(`error ${error.code ?? error.message}`));
    socket.on('close', () => {
      console.log('close');
      process.exit(0);
    });
  });
  server.on('error', (error) => {
    console.log(`error ${error.code ?? error.message}`);
    process.exit(1);
  });
  // Ends quietly when no connection came: the client's lines tell that story.
  setTimeout(() => process.exit(0), timeoutMs).unref();
  // Node's default backlog (511), which packetlab's listener shows in `ss` (it takes none).
  server.listen({ host: bind, port }, () => console.log('ready'));
} else if (mode === 'send') {
  const [dst, dstPortText, countText, payload, timeoutText, bytesText, keepAliveText, idleText] = rest;
  const count = Number(countText);
  const timeoutMs = Number(timeoutText);
  let sent = 0;
  let timer;
  const socket = net.connect({
    host: dst,
    port: Number(dstPortText),
    // 0.0.0.0 and port 0: no bind(), connect() picks the port (__inet_hash_connect, even ports first);
    // an address with port 0: bind() picks it (inet_csk_get_port, odd ports first).
    ...(bind !== '0.0.0.0' || port !== 0 ? { localAddress: bind } : {}),
    ...(port !== 0 ? { localPort: port } : {}),
  });
  const next = () => {
    clearTimeout(timer);
    if (sent >= count) {
      if (keepAliveText !== undefined) setTimeout(() => socket.end(), Number(idleText));
      else socket.end();
      return;
    }
    sent++;
    socket.write(`${payload} ${sent}`);
    timer = setTimeout(() => {
      console.log(`timeout ${sent}`);
      next();
    }, timeoutMs);
  };
  // A connection that never answers: give up (close() in SYN_SENT sends nothing).
  timer = setTimeout(() => {
    console.log('timeout connect');
    socket.destroy();
  }, timeoutMs);
  socket.on('connect', () => {
    console.log('connected');
    if (keepAliveText !== undefined) socket.setKeepAlive(true, Number(keepAliveText));
    if (bytesText === undefined || bytesText === '') next();
    else {
      // Once the server's accept() is over and it sleeps, so no segment meets its socket held.
      clearTimeout(timer);
      setTimeout(() => socket.end(Buffer.alloc(Number(bytesText), 'x')), BULK_DELAY_MS);
    }
  });
  socket.on('data', (data) => {
    console.log(`reply ${show(data)}`);
    next();
  });
  socket.on('error', (error) => console.log(`error ${error.code ?? error.message}`));
  socket.on('close', () => {
    clearTimeout(timer);
    console.log('closed');
  });
} else {
  console.log('usage: tcp-peer.mjs serve|send ...');
  process.exit(2);
}
