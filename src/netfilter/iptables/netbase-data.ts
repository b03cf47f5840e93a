// Port and protocol names as netbase's /etc/services and /etc/protocols list them (IANA assignments): iptables
// resolves them with getservbyname/getprotobyname and prints them with getservbyport/getprotobynumber. packetlab
// has no /etc, so the tables are compiled in; names are followed by their aliases (`80:http|www`).

/** `port:name|alias...` entries of /etc/services for tcp. */
export const TCP_SERVICES: string =
  '1:tcpmux 7:echo 9:discard|sink|null 11:systat|users 13:daytime 15:netstat 17:qotd|quote ' +
  '19:chargen|ttytst|source 20:ftp-data 21:ftp 22:ssh 23:telnet 25:smtp|mail 37:time|timserver ' +
  '43:whois|nicname 49:tacacs 53:domain 70:gopher 79:finger 80:http|www ' +
  '88:kerberos|kerberos5|krb5|kerberos-sec 102:iso-tsap|tsap 104:acr-nema|dicom 106:poppassd ' +
  '110:pop3|pop-3 111:sunrpc|portmapper 113:auth|authentication|tap|ident 119:nntp|readnews|untp ' +
  '135:epmap|loc-srv 139:netbios-ssn 143:imap2|imap 161:snmp 162:snmp-trap|snmptrap 163:cmip-man ' +
  '164:cmip-agent 174:mailq 179:bgp 199:smux 209:qmtp 210:z3950|wais 345:pawserv 346:zserv ' +
  '369:rpc2portmap 370:codaauth2 389:ldap 427:svrloc 443:https 444:snpp 445:microsoft-ds ' +
  '464:kpasswd 465:submissions|ssmtp|smtps|urd 487:saft 512:exec 513:login 514:shell|cmd|syslog ' +
  '515:printer|spooler 538:gdomap 540:uucp|uucpd 543:klogin 544:kshell|krcmd 548:afpovertcp ' +
  '554:rtsp 563:nntps|snntp 587:submission 607:nqs 628:qmqp 631:ipp 636:ldaps 646:ldp 655:tinc ' +
  '706:silc 749:kerberos-adm 750:kerberos4|kerberos-iv|kdc 751:kerberos-master ' +
  '754:krb-prop|krb_prop|krb5_prop|hprop 775:moira-db|moira_db 777:moira-update|moira_update ' +
  '783:spamd 853:domain-s 871:supfilesrv 873:rsync 989:ftps-data 990:ftps 992:telnets 993:imaps ' +
  '995:pop3s 1080:socks 1093:proofd 1094:rootd 1099:rmiregistry 1127:supfiledbg 1178:skkserv ' +
  '1194:openvpn 1236:rmtcfg 1313:xtel 1314:xtelw 1352:lotusnote|lotusnotes 1433:ms-sql-s ' +
  '1524:ingreslock 1645:datametrics|old-radius 1646:sa-msg-port|old-radacct 1649:kermit ' +
  '1677:groupwise 1812:radius 1813:radius-acct|radacct 2000:cisco-sccp 2049:nfs 2086:gnunet ' +
  '2101:rtcm-sc104 2119:gsigatekeeper 2121:iprop 2135:gris 2401:cvspserver 2430:venus 2431:venus-se ' +
  '2432:codasrv 2433:codasrv-se 2583:mon 2600:zebrasrv 2601:zebra 2602:ripd 2603:ripngd 2604:ospfd ' +
  '2605:bgpd 2606:ospf6d 2607:ospfapi 2608:isisd 2628:dict 2792:f5-globalsite 2811:gsiftp 2947:gpsd ' +
  '3050:gds-db|gds_db 3205:isns 3260:iscsi-target 3306:mysql 3389:ms-wbt-server 3493:nut ' +
  '3632:distcc 3689:daap 3690:svn|subversion 4031:suucp 4094:sysrqd 4190:sieve 4353:f5-iquery ' +
  '4369:epmd 4373:remctl 4460:ntske 4557:fax 4559:hylafax 4691:mtn 4899:radmin-port 4949:munin|lrrd ' +
  '5060:sip 5061:sip-tls 5222:xmpp-client|jabber-client 5269:xmpp-server|jabber-server ' +
  '5308:cfengine 5432:postgresql|postgres 5556:freeciv|rptp 5666:nrpe 5667:nsca 5671:amqps ' +
  '5672:amqp 5680:canna 6000:x11|x11-0 6001:x11-1 6002:x11-2 6003:x11-3 6004:x11-4 6005:x11-5 ' +
  '6006:x11-6 6007:x11-7 6346:gnutella-svc 6347:gnutella-rtr 6379:redis ' +
  '6444:sge-qmaster|sge_qmaster 6445:sge-execd|sge_execd 6446:mysql-proxy 6514:syslog-tls ' +
  '6566:sane-port|sane|saned 6667:ircd 6697:ircs-u 7000:bbs 7100:font-service|xfs 8021:zope-ftp ' +
  '8080:http-alt|webcache 8081:tproxy 8088:omniorb 8140:puppet 8990:clc-build-daemon 9098:xinetd ' +
  '9101:bacula-dir 9102:bacula-fd 9103:bacula-sd 9418:git 9667:xmms2 9673:zope 10000:webmin ' +
  '10050:zabbix-agent 10051:zabbix-trapper 10080:amanda 10081:kamanda 10082:amandaidx ' +
  '10083:amidxtape 10809:nbd 11112:dicom 11371:hkp 17004:sgi-cad 17500:db-lsp 22125:dcap ' +
  '22128:gsidcap 22273:wnn6 24554:binkp 27374:asp 30865:csync2 57000:dircproxy 60177:tfido ' +
  '60179:fido';

/** `port:name|alias...` entries of /etc/services for udp. */
export const UDP_SERVICES: string =
  '7:echo 9:discard|sink|null 13:daytime 19:chargen|ttytst|source 21:fsp|fspd 37:time|timserver ' +
  '49:tacacs 53:domain 67:bootps 68:bootpc 69:tftp 88:kerberos|kerberos5|krb5|kerberos-sec ' +
  '111:sunrpc|portmapper 123:ntp 137:netbios-ns 138:netbios-dgm 161:snmp 162:snmp-trap|snmptrap ' +
  '163:cmip-man 164:cmip-agent 177:xdmcp 213:ipx 319:ptp-event 320:ptp-general 369:rpc2portmap ' +
  '370:codaauth2 371:clearcase|Clearcase 389:ldap 427:svrloc 443:https 464:kpasswd 500:isakmp ' +
  '512:biff|comsat 513:who|whod 514:syslog 517:talk 518:ntalk 520:route|router|routed 538:gdomap ' +
  '546:dhcpv6-client 547:dhcpv6-server 554:rtsp 623:asf-rmcp 636:ldaps 646:ldp 655:tinc ' +
  '750:kerberos4|kerberos-iv|kdc 751:kerberos-master|kerberos_master ' +
  '752:passwd-server|passwd_server 779:moira-ureg|moira_ureg 853:domain-s 1194:openvpn 1210:predict ' +
  '1434:ms-sql-m 1645:datametrics|old-radius 1646:sa-msg-port|old-radacct 1701:l2f|l2tp 1812:radius ' +
  '1813:radius-acct|radacct 2049:nfs 2086:gnunet 2101:rtcm-sc104 2102:zephyr-srv 2103:zephyr-clt ' +
  '2104:zephyr-hm 2430:venus 2431:venus-se 2432:codasrv 2433:codasrv-se 2583:mon 3130:icpv2|icp ' +
  '3205:isns 3493:nut 4500:ipsec-nat-t 4569:iax 5060:sip 5061:sip-tls 5353:mdns 5555:rplay ' +
  '6346:gnutella-svc 6347:gnutella-rtr 6696:babel 7000:afs3-fileserver 7001:afs3-callback ' +
  '7002:afs3-prserver 7003:afs3-vlserver 7004:afs3-kaserver 7005:afs3-volser 7007:afs3-bos ' +
  '7008:afs3-update 7009:afs3-rmtsys 17001:sgi-cmsd 17002:sgi-crsd 17003:sgi-gcd 27374:asp';

/** `number:name|alias...` entries of /etc/protocols. */
export const PROTOCOLS: string =
  '0:ip|IP 0:hopopt|HOPOPT 1:icmp|ICMP 2:igmp|IGMP 3:ggp|GGP 4:ipencap|IP-ENCAP 5:st|ST 6:tcp|TCP ' +
  '8:egp|EGP 9:igp|IGP 12:pup|PUP 17:udp|UDP 20:hmp|HMP 22:xns-idp|XNS-IDP 27:rdp|RDP ' +
  '29:iso-tp4|ISO-TP4 33:dccp|DCCP 36:xtp|XTP 37:ddp|DDP 38:idpr-cmtp|IDPR-CMTP 41:ipv6|IPv6 ' +
  '43:ipv6-route|IPv6-Route 44:ipv6-frag|IPv6-Frag 45:idrp|IDRP 46:rsvp|RSVP 47:gre|GRE ' +
  '50:esp|IPSEC-ESP 51:ah|IPSEC-AH 57:skip|SKIP 58:ipv6-icmp|IPv6-ICMP 59:ipv6-nonxt|IPv6-NoNxt ' +
  '60:ipv6-opts|IPv6-Opts 73:rspf|RSPF|CPHB 81:vmtp|VMTP 88:eigrp|EIGRP 89:ospf|OSPFIGP ' +
  '93:ax.25|AX.25 94:ipip|IPIP 97:etherip|ETHERIP 98:encap|ENCAP 103:pim|PIM 108:ipcomp|IPCOMP ' +
  '112:vrrp|VRRP 115:l2tp|L2TP 124:isis|ISIS 132:sctp|SCTP 133:fc|FC ' +
  '135:mobility-header|Mobility-Header 136:udplite|UDPLite 137:mpls-in-ip|MPLS-in-IP 138:manet ' +
  '139:hip|HIP 140:shim6|Shim6 141:wesp|WESP 142:rohc|ROHC 143:ethernet|Ethernet 262:mptcp|MPTCP';
