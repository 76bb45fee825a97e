import { describe, expect, it } from 'vitest';
import { isBlockedAddress } from './egress.js';

describe('isBlockedAddress', () => {
  it.each([
    '127.0.0.1', '127.255.0.1', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1',
    '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fc00::1', 'fd00:ec2::254', '::ffff:127.0.0.1',
    '::ffff:7f00:1', '64:ff9b::a9fe:a9fe', '[::1]', 'not-an-ip',
  ])('blocks %s', (address) => expect(isBlockedAddress(address)).toBe(true));

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) =>
    expect(isBlockedAddress(address)).toBe(false),
  );
});
