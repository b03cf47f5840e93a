// The guided tour (`npm start`): the lesson "Le chemin d'un paquet", its six cases in order on one kind cluster
// formation (Flannel in VXLAN mode, kube-proxy in iptables mode), each with a title, why it matters, what to look at
// in the outputs its commands print, and the lesson's recap at the end; told in English or, with `--lang fr`, in
// French with the lesson's own words. The cases (their commands and checks) are lesson-cluster.ts's; the tour adds
// only words. Not here: the routed CNI and nftables mode (`packetlab run lesson-case N kindnet nftables`).

import { type Lang, Story, type StoryCheck, type StoryResult } from '../src/story/story.ts';
import { formation, type Shell, shell } from './formation-cluster.ts';
import { type LessonCase, tellCase } from './lesson-cluster.ts';

/** A sentence of the tour in each of its languages. */
export interface Sentence {
  readonly en: string;
  readonly fr: string;
}

/** What to look at in the output of the first command that contains `after`. */
export interface Hint {
  readonly after: string;
  readonly look: Sentence;
}

export interface TourCase {
  readonly which: LessonCase;
  readonly title: Sentence;
  readonly why: Sentence;
  readonly hints: readonly Hint[];
  /** What the case proved, said once its checks are in. */
  readonly takeaway: Sentence;
}

export interface TourOptions {
  readonly seed?: string | number;
  readonly lang?: Lang;
}

const CNI = 'flannel-vxlan';
const KUBE_PROXY = 'iptables';

const INTRO: readonly Sentence[] = [
  {
    en: 'The path of a packet: the lesson\'s six cases, from the simplest to the longest, on the kind cluster "formation".',
    fr: "Le chemin d'un paquet : les six cas de la leçon, du plus simple au plus long, sur le cluster kind « formation ».",
  },
  {
    en: 'Every output below is printed by packetlab running the command, in memory; nothing is made up. The checks each case computes from those outputs are printed at the end, PASS or FAIL.',
    fr: 'Chaque sortie ci-dessous est imprimée par packetlab qui exécute la commande, en mémoire ; aucune sortie inventée. Les vérifications que chaque cas calcule sur ces sorties sont imprimées à la fin, PASS ou FAIL (en anglais).',
  },
  {
    en: 'The CNI is Flannel in VXLAN mode (a bridge cni0 on each node, a tunnel flannel.1 between them); kube-proxy runs in iptables mode. The nodes are Docker containers: `docker exec NODE COMMAND` runs a command on one, as SSH would.',
    fr: 'Le plugin est Flannel en mode VXLAN (un pont cni0 sur chaque nœud, un tunnel flannel.1 entre eux) ; kube-proxy est en mode iptables. Les nœuds sont des conteneurs Docker : `docker exec NŒUD COMMANDE` y exécute une commande, comme un accès SSH.',
  },
];

export const TOUR_CASES: readonly TourCase[] = [
  {
    which: 1,
    title: { en: 'Case 1: two pods on the same node', fr: 'Cas 1 : deux pods sur le même nœud' },
    why: {
      en: "Each pod has one end of a veth pair in its namespace (its eth0) and the other end in the node's. The packet must go from one veth to the other without leaving the node.",
      fr: "Chaque pod a une extrémité de paire veth dans son espace de noms (eth0) et l'autre extrémité dans l'espace de noms du nœud. Le paquet doit passer d'une veth à l'autre sans quitter le nœud.",
    },
    hints: [
      {
        after: 'formation-worker ip route',
        look: {
          en: "`10.244.1.0/24 dev cni0`: the node reaches its own pods through the bridge; `10.244.2.0/24 via 10.244.2.0 dev flannel.1`: the other nodes' pods are behind the tunnel.",
          fr: '`10.244.1.0/24 dev cni0` : le nœud joint ses propres pods par le pont ; `10.244.2.0/24 via 10.244.2.0 dev flannel.1` : les pods des autres nœuds sont derrière le tunnel.',
        },
      },
      {
        after: 'formation-worker ip -br link',
        look: {
          en: "eth0 is the link to the Docker network, cni0 the bridge, flannel.1 the tunnel, and each veth… the node's end of a pod's veth pair.",
          fr: "eth0 est le lien vers le réseau Docker, cni0 le pont, flannel.1 l'interface de tunnel, et chaque veth… l'extrémité côté nœud de la paire veth d'un pod.",
        },
      },
      {
        after: "tcpdump -ni any 'icmp'",
        look: {
          en: "-i any shows a packet once per interface it crosses: the request enters the bridge from diag's veth (P) and leaves on 10.244.1.9's veth (Out); the addresses never change.",
          fr: "avec -i any, un même paquet apparaît une fois par interface qu'il traverse : la requête entre dans le pont par la veth de diag (P) et sort par la veth de 10.244.1.9 (Out) ; les adresses ne changent pas.",
        },
      },
    ],
    takeaway: {
      en: 'Same node: veth, then the bridge, which learns MAC addresses and switches the frame like a level-2 switch. No translation between pods.',
      fr: 'Même nœud : la paire veth, puis le pont, qui apprend les adresses MAC et transmet la trame comme un commutateur de niveau 2. Aucune traduction entre pods.',
    },
  },
  {
    which: 2,
    title: { en: 'Case 2: two pods on different nodes', fr: 'Cas 2 : deux pods sur des nœuds différents' },
    why: {
      en: 'The packet from 10.244.1.5 to 10.244.2.7 leaves W1: the node must know that 10.244.2.0/24 is behind W2, and the network between the nodes knows nothing of pod addresses.',
      fr: 'Le paquet de 10.244.1.5 vers 10.244.2.7 quitte W1 : le nœud doit savoir que 10.244.2.0/24 est derrière W2, et le réseau des nœuds ne connaît pas les adresses des pods.',
    },
    hints: [
      {
        after: 'kubectl get pods -o wide',
        look: {
          en: 'the IP and NODE columns: diag and 10.244.1.9 on formation-worker (W1), 10.244.2.7 on formation-worker2 (W2).',
          fr: 'les colonnes IP et NODE : diag et 10.244.1.9 sur formation-worker (W1), 10.244.2.7 sur formation-worker2 (W2).',
        },
      },
      {
        after: 'formation-worker ip route',
        look: {
          en: '`10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink`: the route per node subnet that the plugin installed, into the tunnel.',
          fr: '`10.244.2.0/24 via 10.244.2.0 dev flannel.1 onlink` : la route par sous-réseau de nœud installée par le plugin, vers le tunnel.',
        },
      },
      {
        after: 'ip -d link show flannel.1',
        look: {
          en: '`vxlan id 1 local 172.18.0.3 dev eth0 ... dstport 8472`: the tunnel wraps packets in UDP to port 8472.',
          fr: "`vxlan id 1 local 172.18.0.3 dev eth0 ... dstport 8472` : le tunnel enveloppe les paquets dans de l'UDP vers le port 8472.",
        },
      },
      {
        after: "formation-worker tcpdump -ni any 'icmp or udp port 8472'",
        look: {
          en: "on W1 the request crosses diag's veth, cni0, flannel.1, then eth0 as UDP 172.18.0.3 > 172.18.0.4.8472 (tcpdump names port 8472 OTV): the encapsulation. Inside, the source is still 10.244.1.5.",
          fr: "sur W1 la requête traverse la veth de diag, cni0, flannel.1, puis eth0 en UDP 172.18.0.3 > 172.18.0.4.8472 (tcpdump appelle le port 8472 OTV) : l'encapsulation. À l'intérieur, la source reste 10.244.1.5.",
        },
      },
      {
        after: "formation-worker2 tcpdump -ni any 'icmp or udp port 8472'",
        look: {
          en: "on W2, the reverse: the UDP comes in on eth0, flannel.1 hands out the inner packet, cni0 and the pod's veth deliver it; the reply goes back the same way, its source still 10.244.2.7.",
          fr: "sur W2, le chemin inverse : l'UDP arrive sur eth0, flannel.1 désencapsule, cni0 et la veth du pod livrent ; la réponse repart par le même chemin, sa source reste 10.244.2.7.",
        },
      },
    ],
    takeaway: {
      en: "Other node: a route per node subnet, here into a VXLAN tunnel. The source address stays diag's from end to end.",
      fr: "Autre nœud : une route par sous-réseau de nœud, ici vers un tunnel VXLAN. Aucune traduction d'adresses : l'adresse source reste celle de diag du début à la fin.",
    },
  },
  {
    which: 3,
    title: { en: 'Case 3: to a Service', fr: 'Cas 3 : vers un Service' },
    why: {
      en: 'diag calls signalements:80, so 10.96.40.12:80. That address exists on no interface: the packet must be rewritten before it goes anywhere.',
      fr: "diag appelle signalements:80, donc 10.96.40.12:80. Cette adresse n'existe sur aucune interface ; le paquet doit être réécrit avant d'aller où que ce soit.",
    },
    hints: [
      {
        after: 'kubectl get svc signalements',
        look: {
          en: 'CLUSTER-IP 10.96.40.12 and PORT(S) 80:30080/TCP: the virtual address, its port, and the NodePort of case 6.',
          fr: "CLUSTER-IP 10.96.40.12 et PORT(S) 80:30080/TCP : l'adresse virtuelle, son port, et le NodePort du cas 6.",
        },
      },
      {
        after: 'kubectl get endpointslices',
        look: {
          en: 'ENDPOINTS 10.244.1.9,10.244.2.7 on port 8000: the ready pods the rule picks from.',
          fr: 'ENDPOINTS 10.244.1.9,10.244.2.7 sur le port 8000 : les pods prêts parmi lesquels la règle choisit.',
        },
      },
      {
        after: "tcpdump -ni any -c 20 'host 10.244.1.5 and tcp port 8000'",
        look: {
          en: "each curl is one connection, and the rule picks a pod per connection (the answer names it). The lesson's filter (tcp port 8000) only sees the packets after the DNAT: never 10.96.40.12.",
          fr: 'chaque curl est une connexion, et la règle tire un pod par connexion (la réponse le nomme). Le filtre de la leçon (tcp port 8000) ne voit que les paquets après le DNAT : jamais 10.96.40.12.',
        },
      },
      {
        after: "tcpdump -ni any 'host 10.244.1.5 and tcp'",
        look: {
          en: "on diag's veth the SYN still goes to 10.96.40.12.80; on flannel.1 the same SYN goes to 10.244.2.7.8000: the DNAT happened in PREROUTING, before routing chose the tunnel.",
          fr: 'sur la veth de diag, le SYN va encore vers 10.96.40.12.80 ; sur flannel.1, le même SYN va vers 10.244.2.7.8000 : le DNAT a eu lieu en PREROUTING, avant que le routage ne choisisse le tunnel.',
        },
      },
      {
        after: 'conntrack -L -p tcp --dport 80',
        look: {
          en: 'each entry holds both directions: the original (dst=10.96.40.12 dport=80) and the reply, already translated (src=10.244.2.7 sport=8000). conntrack keeps the translation for every later packet of the connection.',
          fr: "chaque entrée porte les deux sens : l'original (dst=10.96.40.12 dport=80) et celui de la réponse, déjà traduit (src=10.244.2.7 sport=8000). conntrack retient la traduction pour tous les paquets suivants de la connexion.",
        },
      },
      {
        after: 'iptables -t nat -S KUBE-SERVICES',
        look: {
          en: '`-d 10.96.40.12/32 -p tcp ... --dport 80 -j KUBE-SVC-...`: the rule recognises the Service address and port and jumps to the chain that picks a ready pod.',
          fr: "`-d 10.96.40.12/32 -p tcp ... --dport 80 -j KUBE-SVC-...` : la règle reconnaît l'adresse et le port du Service, et saute dans la chaîne qui choisit un pod prêt.",
        },
      },
    ],
    takeaway: {
      en: "Service: DNAT of the virtual address to a pod, in PREROUTING (OUTPUT for the node's own processes), before routing. conntrack keeps the translation, so the choice is made once per connection.",
      fr: "Service : DNAT de l'adresse virtuelle vers un pod, avant le routage (PREROUTING, ou OUTPUT pour un processus du nœud). conntrack retient la traduction : la répartition se fait « par connexion ».",
    },
  },
  {
    which: 4,
    title: { en: 'Case 4: the way back', fr: 'Cas 4 : le retour' },
    why: {
      en: 'The pod 10.244.2.7 answers 10.244.1.5, the address it saw. But diag called 10.96.40.12:80: an answer from any other address would not belong to a connection its TCP stack knows.',
      fr: "Le pod 10.244.2.7 répond à 10.244.1.5 (l'adresse qu'il a vue). Mais diag a appelé 10.96.40.12:80 : une réponse venue d'une autre adresse, la pile TCP du client la rejetterait.",
    },
    hints: [
      {
        after: "tcpdump -ni any 'host 10.244.1.5 and tcp'",
        look: {
          en: "follow the SYN-ACK (Flags [S.]): it comes in on flannel.1 from 10.244.2.7.8000 and leaves on diag's veth from 10.96.40.12.80. conntrack found the connection's entry and applied the reverse translation.",
          fr: "suivez le SYN-ACK (Flags [S.]) : il arrive sur flannel.1 depuis 10.244.2.7.8000 et sort sur la veth de diag depuis 10.96.40.12.80. conntrack a retrouvé l'entrée de la connexion et appliqué la traduction inverse.",
        },
      },
      {
        after: 'kubectl exec signalements-7d9f-b -- curl',
        look: {
          en: "the call repeats until the rule picks the caller itself (ok signalements-7d9f-b). Then the packet is marked (KUBE-MARK-MASQ) and masqueraded in POSTROUTING: the access log below shows that last call coming from the node's side, 10.244.1.1.",
          fr: "l'appel se répète jusqu'à ce que la règle tire le pod appelant lui-même (ok signalements-7d9f-b). Le paquet est alors marqué (KUBE-MARK-MASQ) et masqué en POSTROUTING : le journal d'accès ci-dessous montre ce dernier appel venant du nœud, 10.244.1.1.",
        },
      },
    ],
    takeaway: {
      en: 'The way back: the reply crosses the conntrack table, which rewrites 10.244.2.7:8000 back to 10.96.40.12:80. Hairpin traffic is masqueraded so that its reply also comes back through the translation.',
      fr: 'Le retour : la réponse traverse la table de conntrack, qui réécrit 10.244.2.7:8000 en 10.96.40.12:80 (le NAT à état). Le trafic en épingle à cheveux est masqué pour que sa réponse repasse, elle aussi, par la traduction.',
    },
  },
  {
    which: 5,
    title: { en: 'Case 5: a pod calls the Internet', fr: 'Cas 5 : un pod appelle Internet' },
    why: {
      en: "The pod's address 10.244.1.5 is private and has no route on the Internet: leaving the cluster, the packet's source must be translated.",
      fr: "L'adresse du pod (10.244.1.5) est privée et n'a aucune route sur Internet : en sortant du cluster, le paquet subit une traduction de source.",
    },
    hints: [
      {
        after: "tcpdump -ni any 'host 203.0.113.10'",
        look: {
          en: "on diag's veth the SYN is from 10.244.1.5; on eth0 it is from 172.18.0.3, the node's address: the masquerade, a SNAT that takes the outgoing interface's address.",
          fr: "sur la veth de diag, le SYN vient de 10.244.1.5 ; sur eth0, il vient de 172.18.0.3, l'adresse du nœud : le masquerade, la forme de SNAT qui prend l'adresse de l'interface de sortie.",
        },
      },
      {
        after: 'conntrack -L -p tcp --dport 80',
        look: {
          en: 'the entry to 203.0.113.10: the reply side is addressed to dst=172.18.0.3; conntrack remembers the mapping to translate the answer back to the pod.',
          fr: "l'entrée vers 203.0.113.10 : le sens de la réponse est adressé à dst=172.18.0.3 ; la table de conntrack se souvient de la correspondance pour retraduire la réponse vers le pod.",
        },
      },
      {
        after: 'conntrack -L -p tcp --sport 40000',
        look: {
          en: "two pods, the same source port 40000, the same destination: on the reply side (dport=) each has its own port of 172.18.0.3. Flannel's MASQUERADE is --random-fully, so every port is drawn, not only on a collision; the translation is of address and port, and ports are a limited resource.",
          fr: 'deux pods, le même port source 40000, la même destination : côté réponse (dport=), chacun a son propre port de 172.18.0.3. Le MASQUERADE de Flannel est --random-fully : chaque port est tiré, pas seulement en cas de collision ; la traduction concerne adresse et port, et les ports de sortie sont une ressource limitée.',
        },
      },
    ],
    takeaway: {
      en: "Egress: a masquerade to the node's address; external servers see the node, not the pod, and the pods of a node share its source ports.",
      fr: "Sortie vers Internet : SNAT de type masquerade vers l'adresse du nœud ; les serveurs externes voient le nœud, et les ports de sortie sont une ressource limitée.",
    },
  },
  {
    which: 6,
    title: { en: 'Case 6: from outside', fr: "Cas 6 : depuis l'extérieur" },
    why: {
      en: 'A client outside the cluster calls a NodePort: a high port (30000-32767) on every node, which the node translates to a pod. What the pod sees depends on externalTrafficPolicy.',
      fr: 'Un client hors du cluster appelle un NodePort : un port élevé (plage 30000 à 32767) de chaque nœud, que le nœud traduit vers un pod. Ce que voit le pod dépend du champ externalTrafficPolicy.',
    },
    hints: [
      {
        after: 'crictl ps --name signalements',
        look: {
          en: "the first column is the container's ID, which crictl inspect takes to print the process's PID.",
          fr: "la première colonne est l'identifiant du conteneur ; crictl inspect le prend pour extraire le PID du processus.",
        },
      },
      {
        after: 'nsenter -t',
        look: {
          en: "nsenter -t PID -n runs the node's own tools in the pod's network namespace only: here the pod's eth0 with 10.244.2.7.",
          fr: "nsenter -t <PID> -n exécute la commande dans l'espace de noms réseau du processus, et seulement celui-là, avec les outils du nœud : ici eth0 du pod et son adresse 10.244.2.7.",
        },
      },
      {
        after: "-n tcpdump -ni eth0 'tcp port 8000'",
        look: {
          en: "inside the pod, the SYN comes from 10.244.1.0 (flannel.1's address on W1), not from the client 172.18.0.1: with Cluster, the node that received the call did a SNAT too, so that the reply comes back the way it came.",
          fr: "dans le pod, le SYN vient de 10.244.1.0 (l'adresse de flannel.1 sur W1), pas du client 172.18.0.1 : en mode Cluster, le nœud qui a reçu l'appel fait aussi un SNAT, pour que la réponse revienne par le même chemin.",
        },
      },
      {
        after: 'conntrack -L -p tcp --dport 30080',
        look: {
          en: "each entry, two translations: the original goes to 172.18.0.3:30080, the reply comes from a pod's port 8000 to the node's side (DNAT and SNAT at once).",
          fr: "chaque entrée, deux traductions : l'original va vers 172.18.0.3:30080, la réponse vient du port 8000 d'un pod vers l'adresse côté nœud (DNAT et SNAT à la fois).",
        },
      },
      {
        after: 'curl -s -m 2 http://172.18.0.2:30080',
        look: {
          en: "with Local, the pod sees the client's own address (the access log above), but a node with no pod of the Service can do nothing with the call: exit 28, a timeout. A load balancer must leave it out, through healthCheckNodePort.",
          fr: "avec Local, le pod voit l'adresse du client (le journal d'accès ci-dessus), mais un nœud sans pod du Service ne peut rien faire du trafic : code 28, délai dépassé. Le répartiteur doit l'écarter, grâce à healthCheckNodePort.",
        },
      },
    ],
    takeaway: {
      en: "Ingress: NodePort, then the pod. externalTrafficPolicy Cluster balances but hides the source (SNAT); Local keeps the client's address and saves a hop, but needs a local pod and healthCheckNodePort.",
      fr: "Entrée : NodePort, puis pod. externalTrafficPolicy: Cluster équilibre mais masque la source (SNAT) ; Local préserve l'adresse du client, évite un saut, mais exige un pod local et healthCheckNodePort.",
    },
  },
];

/** The lesson's "Récapitulatif", as the tour showed it. */
const RECAP: readonly Sentence[] = [
  {
    en: 'Recap',
    fr: 'Récapitulatif',
  },
  {
    en: '• Same node: veth, then bridge or routing; other node: a route per node subnet, or a tunnel (VXLAN). No translation between pods.',
    fr: '• Même nœud : veth, puis pont ou routage ; autre nœud : route par sous-réseau de nœud, ou tunnel (VXLAN). Aucune traduction entre pods.',
  },
  {
    en: '• Service: DNAT of the virtual address to a pod, before routing (PREROUTING or OUTPUT) with kube-proxy. conntrack keeps the translation and rewrites the reply.',
    fr: "• Service : DNAT de l'adresse virtuelle vers un pod, avant le routage (PREROUTING ou OUTPUT) avec kube-proxy. conntrack retient la traduction et réécrit la réponse.",
  },
  {
    en: "• Egress to the Internet: a masquerade SNAT to the node's address; external servers see the node, and egress ports are a limited resource.",
    fr: "• Sortie vers Internet : SNAT de type masquerade vers l'adresse du nœud ; les serveurs externes voient le nœud, et les ports de sortie sont une ressource limitée.",
  },
  {
    en: "• Ingress: NodePort, then pod. externalTrafficPolicy: Cluster balances but hides the source (SNAT); Local keeps the client's address, saves a hop, but needs a local pod and healthCheckNodePort.",
    fr: "• Entrée : NodePort, puis pod. externalTrafficPolicy: Cluster équilibre mais masque la source (SNAT) ; Local préserve l'adresse du client, évite un saut, mais exige un pod local et healthCheckNodePort.",
  },
  {
    en: '• To observe: ip route and ip -d link on the node, nsenter -t <PID> -n to enter a pod, tcpdump -i any in the right places, conntrack -L.',
    fr: '• Pour observer : ip route et ip -d link sur le nœud, nsenter -t <PID> -n pour entrer dans un pod, tcpdump -i any aux bons endroits, conntrack -L.',
  },
  {
    en: 'Next: `packetlab run lesson-case N kindnet nftables` replays case N with routing instead of the bridge and tunnel, and kube-proxy in nftables mode; `packetlab list` shows every scenario.',
    fr: 'Ensuite : `packetlab run lesson-case N kindnet nftables` rejoue le cas N avec le routage au lieu du pont et du tunnel, et kube-proxy en mode nftables ; `packetlab list` montre tous les scénarios.',
  },
];

function say(story: Story, sentence: Sentence): void {
  story.say(sentence.en, { fr: sentence.fr });
}

/** How a case's checks went, in a sentence (the checks themselves are listed at the end, in English). */
function tally(story: Story, checks: readonly StoryCheck[]): void {
  const failed = checks.filter((check) => !check.pass).length;
  const n = checks.length;
  if (failed === 0)
    story.say(`${n} checks for this case: all pass.`, {
      fr: `${n} vérifications pour ce cas : toutes passent.`,
    });
  else
    story.say(`${n} checks for this case: ${failed} FAIL (see the end).`, {
      fr: `${n} vérifications pour ce cas : ${failed} en échec (FAIL, voir la fin).`,
    });
}

/** The shell, saying what to look at after the first command that matches each hint (background: once stopped). */
function hinted(sh: Shell, story: Story, hints: readonly Hint[]): Shell {
  const pending = [...hints];
  const after = (line: string) => {
    const index = pending.findIndex((hint) => line.includes(hint.after));
    if (index < 0) return;
    const [hint] = pending.splice(index, 1);
    story.say(`look at: ${hint!.look.en}`, { fr: `à observer : ${hint!.look.fr}` });
  };
  const run = ((line: string, stdin?: string) => {
    const result = sh(line, stdin);
    after(line);
    return result;
  }) as Shell;
  run.host = (line) => {
    const result = sh.host(line);
    after(line);
    return result;
  };
  run.background = (line) => {
    const started = sh.background(line);
    return {
      stop: () => {
        const result = started.stop();
        after(line);
        return result;
      },
    };
  };
  return run;
}

/** The six cases, one after the other on one cluster, each titled and explained, then the recap. */
export function tourStory(options: TourOptions = {}): StoryResult {
  const seed = options.seed ?? 'formation';
  const f = formation({ cni: CNI, kubeProxy: KUBE_PROXY, seed });
  const story = new Story('tour', seed, { lang: options.lang ?? 'en' });
  story.attach(f.c.sim);
  for (const sentence of INTRO) say(story, sentence);
  const sh = shell(f.c, story);
  const nodes = sh('kubectl get nodes -o wide').stdout;
  const pods = sh('kubectl get pods -o wide').stdout;
  story.expectThat(
    "the cluster has the lesson's nodes and pods: W1 172.18.0.3 with diag 10.244.1.5, W2 172.18.0.4 with 10.244.2.7",
    'formation-worker 172.18.0.3, formation-worker2 172.18.0.4, diag 10.244.1.5 on formation-worker, 10.244.2.7 on formation-worker2',
    [...nodes.split('\n').slice(1), ...pods.split('\n').slice(1)]
      .map((row) => row.split(/ +/).slice(0, 7).join(' '))
      .filter((row) => row !== '')
      .join('; '),
    /formation-worker +Ready .* 172\.18\.0\.3 /.test(nodes) &&
      /formation-worker2 +Ready .* 172\.18\.0\.4 /.test(nodes) &&
      /diag .* 10\.244\.1\.5 +formation-worker /.test(pods) &&
      /10\.244\.2\.7 +formation-worker2 /.test(pods),
  );
  for (const tourCase of TOUR_CASES) {
    story.say(`──── ${tourCase.title.en} ────`, { fr: `──── ${tourCase.title.fr} ────` });
    say(story, tourCase.why);
    const before = story.checksSoFar.length;
    tellCase(tourCase.which, {
      f,
      story,
      sh: hinted(sh, story, tourCase.hints),
      cni: CNI,
      kubeProxy: KUBE_PROXY,
    });
    say(story, tourCase.takeaway);
    tally(story, story.checksSoFar.slice(before));
  }
  story.say(`──── ${RECAP[0]!.en} ────`, { fr: `──── ${RECAP[0]!.fr} ────` });
  for (const sentence of RECAP.slice(1)) say(story, sentence);
  return story.result();
}
