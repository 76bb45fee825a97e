import { describe, expect, it } from 'vitest';
import { isBlockedAddress } from './egress.js';

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1', '127.255.0.1', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', '::ffff:127.0.0.1',
    '::ffff:7f00:1', '64:ff9b::a9fe:a9fe', '[::1]', 'not-an-ip',
  ])('blocks %s', (address) => expect(isBlockedAddress(address)).toBe(true));

  it.each([
    '::127.0.0.1', '::7f00:1', '[::127.0.0.1]', '::ffff:0:7f00:1', '::ffff:0:127.0.0.1', '::ffff:7f00:1', '0:0:0:0:0:ffff:7f00:1',
    '2002:7f00:1::', '2002:a00:1::1', '2002:c0a8:101:0:0:0:0:1', '64:ff9b::7f00:1', '64:ff9b::127.0.0.1', '64:ff9b::a00:1',
    '64:ff9b:1::7f00:1', '2001:0:4136:e378:8000:63bf:80ff:fffe', 'FFFF::1', '::FFFF:7F00:1',
  ])('blocks the IPv6 form %s, which carries a private IPv4 address', (address) => expect(isBlockedAddress(address)).toBe(true));

  it.each(['93.184.215.14', '8.8.8.8', '2002:808:808::1', '64:ff9b::808:808', '::ffff:0:808:808', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) =>
    expect(isBlockedAddress(address)).toBe(false),
  );
});
