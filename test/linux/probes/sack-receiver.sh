#!/bin/bash
# Usage: [PLAN="0 2 3 ... wait 1 wait"] sack-receiver.sh SPACING_SECONDS (as root). Prints the listener's ACKs: ack, window,
# SACK blocks relative to the peer's ISN + 1. What test/socket/tcp/ofo-queue.test.ts expects came from it.
# Two namespaces with a veth; b listens on 8080 (python), a is the raw peer. Cleans up always.
P=plhtl$$x0
A=$P-a; B=$P-b
cleanup() { [ -n "$SRV" ] && kill $SRV 2>/dev/null; ip netns del $A 2>/dev/null; ip netns del $B 2>/dev/null; }
trap cleanup EXIT
ip netns add $A; ip netns add $B
ip -n $A link add veth-a type veth peer name veth-b netns $B
ip -n $A link set veth-a address 02:70:6c:00:00:01; ip -n $B link set veth-b address 02:70:6c:00:00:02
ip -n $A addr add 10.0.0.1/24 dev veth-a; ip -n $B addr add 10.0.0.2/24 dev veth-b
ip -n $A link set veth-a up; ip -n $B link set veth-b up; ip -n $A link set lo up; ip -n $B link set lo up
ip -n $B neigh add 10.0.0.1 lladdr 02:70:6c:00:00:01 dev veth-b nud permanent
ip netns exec $A sysctl -qw net.ipv6.conf.all.disable_ipv6=1; ip netns exec $B sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip netns exec $A iptables -A OUTPUT -p tcp --tcp-flags RST RST -j DROP
ip netns exec $B python3 -c "
import socket,time
l=socket.socket(); l.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); l.bind(('10.0.0.2',8080)); l.listen(1)
c,_=l.accept()
while True:
  d=c.recv(65536)
  if not d: time.sleep(5); break
" & SRV=$!
sleep 0.3
ip netns exec $A python3 "$(dirname "$0")/sack-peer.py" veth-a 02:70:6c:00:00:01 02:70:6c:00:00:02 "$1"
