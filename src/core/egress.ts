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
];
for (const [net, prefix] of V4_RANGES) blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of V6_RANGES) blocked.addSubnet(net, prefix, 'ipv6');

/** IPv4 carried inside IPv6 (::ffff:a.b.c.d, ::a.b.c.d, NAT64 64:ff9b::/96) is judged as the IPv4 it carries. */
function embeddedIpv4(address: string): string | undefined {
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = parseInt(hex[1] as string, 16);
  const low = parseInt(hex[2] as string, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True for any address a webhook must not be delivered to; unparseable input counts as blocked. */
export function isBlockedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4 = embeddedIpv4(bare.toLowerCase());
  if (v4 !== undefined) return blocked.check(v4, 'ipv4');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family === 6) return blocked.check(bare, 'ipv6');
  return true;
}
