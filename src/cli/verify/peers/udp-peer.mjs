// One end of the harness's UDP exchange on the real kernel, run with `ip netns exec NS node udp-peer.mjs ...`:
// fixed ports, a bounded number of datagrams and a timeout, so it always ends. No IPv6, no connected sockets.
//
//   serve BIND PORT COUNT TIMEOUT_MS           echoes COUNT datagrams back, prints "ready" once bound
//   send  BIND PORT DST DST_PORT COUNT PAYLOAD TIMEOUT_MS
//                                              sends "PAYLOAD i" for i = 1..COUNT, each after the
//                                              previous answer or its timeout
// Every line printed is what the harness compares with packetlab's side.

import dgram from 'node:dgram';

const [mode, bind, portText, ...rest] = process.argv.slice(2);
const port = Number(portText);
const socket = dgram.createSocket({ type: 'udp4', reuseAddr: false });
socket.on('error', (error) => {
  console.log(`error ${error.code ?? error.message}`);
  process.exit(1);
});

if (mode === 'serve') {
  const count = Number(rest[0]);
  const timeoutMs = Number(rest[1]);
  let seen = 0;
  // Ends quietly when fewer datagrams came: the client's "timeout N" lines tell that story.
  const timer = setTimeout(() => socket.close(), timeoutMs);
  socket.on('message', (message, from) => {
    seen++;
    console.log(`from ${from.address}:${from.port} ${JSON.stringify(message.toString('latin1'))}`);
    socket.send(message, from.port, from.address, () => {
      if (seen >= count) {
        clearTimeout(timer);
        socket.close();
      }
    });
  });
  socket.bind(port, bind, () => console.log('ready'));
} else if (mode === 'send') {
  const [dst, dstPortText, countText, payload, timeoutText] = rest;
  const dstPort = Number(dstPortText);
  const count = Number(countText);
  const timeoutMs = Number(timeoutText);
  let sent = 0;
  let timer;
  let waiting = false;
  const next = () => {
    waiting = false;
    if (sent >= count) {
      socket.close();
      return;
    }
    sent++;
    waiting = true;
    socket.send(Buffer.from(`${payload} ${sent}`, 'latin1'), dstPort, dst, (error) => {
      if (error) console.log(`send error ${error.code ?? error.message}`);
    });
    timer = setTimeout(() => {
      console.log(`timeout ${sent}`);
      next();
    }, timeoutMs);
  };
  socket.on('message', (message, from) => {
    console.log(`reply from ${from.address}:${from.port} ${JSON.stringify(message.toString('latin1'))}`);
    if (!waiting) return;
    clearTimeout(timer);
    next();
  });
  socket.bind(port, bind, next);
} else {
  console.log(`usage: udp-peer.mjs serve|send ...`);
  process.exit(2);
}
