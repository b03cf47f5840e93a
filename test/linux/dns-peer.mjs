// The kernel side's DNS server for the resolver's search-list case, run with `ip netns exec NS node dns-peer.mjs
// ADDR TIMEOUT_MS NAME=IP...`: answers as packetlab's clusterDns does — each A query for a listed name with its
// address, AAAA for it with NOERROR and no answer, other names in cluster.local with NXDOMAIN (all authoritative),
// and names outside the zone with SERVFAIL (no upstream), never names starting with `silent`; prints `ready` once bound, then one line per
// query (`A name`, `AAAA name`; with `--ports` before the pairs, `A name PORT`: the sender's port) as they arrive, and
// exits after TIMEOUT_MS. No TCP, no EDNS, no compression read.

import dgram from 'node:dgram';

const [bind, timeoutText, ...rest] = process.argv.slice(2);
const showPorts = rest[0] === '--ports';
const pairs = showPorts ? rest.slice(1) : rest;
const table = new Map(pairs.map((pair) => pair.split('=')).map(([name, ip]) => [name.toLowerCase(), ip]));
const TYPES = { 1: 'A', 28: 'AAAA' };
const socket = dgram.createSocket('udp4');
setTimeout(() => socket.close(), Number(timeoutText));
socket.on('message', (query, from) => {
  const labels = [];
  let at = 12;
  while (query[at] !== 0 && at < query.length) {
    labels.push(query.subarray(at + 1, at + 1 + query[at]).toString('latin1'));
    at += 1 + query[at];
  }
  const questionEnd = at + 5;
  const type = query.readUInt16BE(at + 1);
  const name = labels.join('.');
  console.log(`${TYPES[type] ?? type} ${name}${showPorts ? ` ${from.port}` : ''}`);
  // A name starting with `silent` is never answered (a server that lost it): the resolver times out.
  if (name.startsWith('silent')) return;
  const addr = table.get(name.toLowerCase());
  const answer = addr !== undefined && type === 1;
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2);
  // QR, AA (in the zone), RD copied; NXDOMAIN for unknown names in the zone, SERVFAIL outside.
  const inZone = name.toLowerCase() === 'cluster.local' || name.toLowerCase().endsWith('.cluster.local');
  const flags = inZone ? 0x8400 | (addr === undefined ? 3 : 0) : 0x8000 | 2;
  header.writeUInt16BE(flags | (query.readUInt16BE(2) & 0x0100), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answer ? 1 : 0, 6);
  const parts = [header, query.subarray(12, questionEnd)];
  if (answer) {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(1, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(30, 6);
    record.writeUInt16BE(4, 10);
    addr.split('.').forEach((byte, i) => {
      record[12 + i] = Number(byte);
    });
    parts.push(record);
  }
  socket.send(Buffer.concat(parts), from.port, from.address);
});
socket.bind(53, bind, () => console.log('ready'));
