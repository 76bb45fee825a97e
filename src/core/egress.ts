import { BlockList, isIP } from 'node:net';

/**
 * Outbound-safety policy for webhook and chat-app URLs: addresses a customer-supplied URL must not
 * reach (loopback, private, link-local incl. the cloud metadata address, carrier-grade NAT,
 * documentation, multicast, reserved). Pure; the HTTP adapter applies it to every resolved address.
 */
const blocked = new BlockList();
const V4_RANGES: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const V6_RANGES: Array<[string, number]> = [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8], ['2001:db8::', 32], ['100::', 64],
  // Teredo hides the IPv4 client XOR-ed; local-use NAT64 places it by prefix length: both refused whole.
  ['2001::', 32], ['64:ff9b:1::', 48],
];
for (const [net, prefix] of V4_RANGES) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6_RANGES) blocked.addSubnet(net, prefix, 'ipv6');

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail counts as the last two); undefined if not IPv6. */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)));
  const front = parse(head);
  if (tail === undefined) return front;
  const back = parse(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

const ipv4Of = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.');
const zero = (groups: number[]) => groups.every((g) => g === 0);

/**
 * The IPv4 address an IPv6 address carries, by the forms that route to it: mapped (::ffff:a.b.c.d),
 * translated (::ffff:0:a.b.c.d), compatible (::a.b.c.d), 6to4 (2002:aabb:ccdd::/48) and NAT64
 * (64:ff9b::/96). Such an address is judged as that IPv4 address.
 */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (g === undefined) return undefined;
  const [g0, g1, g2, , g4, g5, g6, g7] = g as [number, number, number, number, number, number, number, number];
  if (zero(g.slice(0, 5)) && (g5 === 0xffff || g5 === 0)) return ipv4Of(g6, g7);
  if (zero(g.slice(0, 4)) && g4 === 0xffff && g5 === 0) return ipv4Of(g6, g7);
  if (g0 === 0x2002) return ipv4Of(g1, g2);
  if (g0 === 0x64 && g1 === 0xff9b && zero(g.slice(2, 6))) return ipv4Of(g6, g7);
  return undefined;
}

/** True for any address a webhook must not be delivered to; unparseable input counts as blocked. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4 = embeddedIpv4(bare);
  if (v4 !== undefined) return blocked.check(v4, 'ipv4');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family === 6) return blocked.check(bare, 'ipv6');
  return true;
}
