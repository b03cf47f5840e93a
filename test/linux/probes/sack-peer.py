# Raw-socket peer (run by sack-receiver.sh): handshake with a real Linux listener, then out-of-order segments; prints the ACKs' SACK blocks.
import socket, struct, sys, time, os, select
IFACE, SRC_MAC, DST_MAC = sys.argv[1], bytes.fromhex(sys.argv[2].replace(':','')), bytes.fromhex(sys.argv[3].replace(':',''))
SPACING = float(sys.argv[4]) if len(sys.argv) > 4 else 0.0
SRC, DST = socket.inet_aton('10.0.0.1'), socket.inet_aton('10.0.0.2')
SPORT, DPORT = 40000, 8080
ISN = 1000
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind((IFACE, 0))
def csum(b):
    if len(b) % 2: b += b'\0'
    t = sum(struct.unpack('!%dH' % (len(b)//2), b))
    while t >> 16: t = (t & 0xffff) + (t >> 16)
    return (~t) & 0xffff
ipid = [1]
def send(seq, ack, flags, payload=b'', opts=b''):
    off = (20 + len(opts)) // 4
    tcp = struct.pack('!HHIIBBHHH', SPORT, DPORT, seq & 0xffffffff, ack & 0xffffffff, off << 4, flags, 502, 0, 0) + opts + payload
    ph = SRC + DST + struct.pack('!BBH', 0, 6, len(tcp))
    c = csum(ph + tcp)
    tcp = tcp[:16] + struct.pack('!H', c) + tcp[18:]
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), ipid[0], 0x4000, 64, 6, 0, SRC, DST)
    ipid[0] += 1
    ip = ip[:10] + struct.pack('!H', csum(ip)) + ip[12:]
    s.send(DST_MAC + SRC_MAC + b'\x08\x00' + ip + tcp)
t0 = time.time()
def tsval(): return int((time.time() - t0) * 1000) + 5
def recv_all(timeout):
    out = []
    end = time.time() + timeout
    while True:
        r, _, _ = select.select([s], [], [], max(0, end - time.time()))
        if not r: return out
        f = s.recv(2000)
        if f[12:14] != b'\x08\x00' or f[23] != 6: continue
        ihl = (f[14] & 15) * 4
        t = f[14 + ihl:]
        sport, dport, seq, ack, off, flags, win = struct.unpack('!HHIIBBH', t[:16])
        if sport != DPORT: continue
        hl = (off >> 4) * 4
        opts = t[20:hl]
        o, i, sacks, ts = [], 0, None, None
        while i < len(opts):
            k = opts[i]
            if k == 0: break
            if k == 1: i += 1; continue
            l = opts[i+1]
            if k == 5: sacks = [struct.unpack('!II', opts[j:j+8]) for j in range(i+2, i+l, 8)]
            if k == 8: ts = struct.unpack('!II', opts[i+2:i+10])
            i += l
        out.append((time.time() - t0, seq, ack, flags, win, sacks, ts, len(t) - hl))
opts_syn = struct.pack('!BBH', 2, 4, 1460) + struct.pack('!BBBBII', 4, 2, 8, 10, tsval(), 0) + struct.pack('!BBBB', 1, 3, 3, 7)
send(ISN, 0, 0x02, opts=opts_syn)
r = recv_all(0.5)
synack = [x for x in r if x[3] & 0x12 == 0x12][0]
irs = synack[1]
peer_ts = synack[6][0]
rcv = irs + 1
def tsopt(): return struct.pack('!BBBBII', 1, 1, 8, 10, tsval(), peer_ts)
send(ISN + 1, rcv, 0x10, opts=tsopt())
time.sleep(0.05)
L = 100
def seg(n, payload_len=L):  # n-th 100-byte segment, relative offset n*L
    send(ISN + 1 + n * L, rcv, 0x10, bytes([65 + n % 26]) * payload_len, opts=tsopt())
    if SPACING: time.sleep(SPACING)
plan = [int(x) if x.lstrip('-').isdigit() else x for x in os.environ.get('PLAN', '0 2 3 4 5 6 7 8 9 wait 3 wait 1 wait').split()]
for step in plan:
    if step == 'wait':
        for x in recv_all(0.3):
            rel = lambda v: (v - ISN - 1) & 0xffffffff
            print('%.4f ack=%d win=%d sacks=%s len=%d' % (x[0], rel(x[2]), x[4], [(rel(a), rel(b)) for a, b in x[5]] if x[5] else None, x[7]))
        print('--')
    else:
        seg(step)
for x in recv_all(0.3):
    rel = lambda v: (v - ISN - 1) & 0xffffffff
    print('%.4f ack=%d win=%d sacks=%s len=%d' % (x[0], rel(x[2]), x[4], [(rel(a), rel(b)) for a, b in x[5]] if x[5] else None, x[7]))
