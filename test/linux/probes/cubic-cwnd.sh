#!/bin/bash
# Usage: DUR=seconds DROP=n cubic-cwnd.sh (as root): b's INPUT drops a's TCP packet n (from 0). Prints TCP_INFO
# changes (snd_cwnd, snd_ssthresh, ca_state, total_retrans, rtt) of a per-socket CUBIC sender.
# CUBIC on the real kernel: a per-socket TCP_CONGESTION=cubic bulk sender over a veth with a tbf
# queue (20 mbit, no GSO), one segment dropped by iptables nth; TCP_INFO sampled every ms. Cleans up always.
P=plhtc$$x0
A=$P-a; B=$P-b
cleanup() { [ -n "$SRV" ] && kill $SRV 2>/dev/null; ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; }
trap cleanup EXIT
ip netns add $A; ip netns add $B
ip -n $A link add veth-a type veth peer name veth-b netns $B
ip -n $A addr add 10.0.0.1/24 dev veth-a; ip -n $B addr add 10.0.0.2/24 dev veth-b
ip -n $A link set veth-a up; ip -n $B link set veth-b up
ip -n $A link set veth-a gso_max_segs 1
ip netns exec $A tc qdisc add dev veth-a root tbf rate 20mbit burst 32kbit latency 400ms || exit 1
ip netns exec $A iptables -A OUTPUT -p tcp --dport 8080
ip netns exec $B iptables -A INPUT -p tcp --dport 8080 -m statistic --mode nth --every 1000000 --packet ${DROP:-400} -j DROP
ip netns exec $B python3 -c "
import socket
l=socket.socket(); l.bind(('10.0.0.2',8080)); l.listen(1)
c,_=l.accept()
while c.recv(1<<20): pass
" & SRV=$!
sleep 0.3
ip netns exec $A python3 - <<'PY'
import socket, struct, time, threading
s = socket.socket()
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, b'cubic')
s.connect(('10.0.0.2', 8080))
buf = b'x' * 65536
stop = False
def pump():
    while not stop:
        try: s.send(buf)
        except OSError: return
threading.Thread(target=pump, daemon=True).start()
t0 = time.time(); last = None
while time.time() - t0 < float(__import__('os').environ.get('DUR', '6')):
    i = s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104)
    ca_state = i[1]
    ssthresh, cwnd = struct.unpack_from('II', i, 76)
    rtt, = struct.unpack_from('I', i, 68)
    tr, = struct.unpack_from('I', i, 100)
    row = (cwnd, ssthresh, ca_state, tr)
    if row != last:
        print('%.3f cwnd=%d ssthresh=%d ca=%d retr=%d rtt=%d' % (time.time() - t0, cwnd, ssthresh, ca_state, tr, rtt))
        last = row
    time.sleep(0.001)
stop = True
PY
ip netns exec $A iptables -L OUTPUT -v -n -x
ip netns exec $B iptables -L INPUT -v -n -x
