import { describe, expect, it } from 'vitest';
import { guardedLookup, isPrivateAddress } from './target-guard.ts';

describe('webhook target guard', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.5.5',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd12:3456::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '64:ff9b::a00:1',
  ])('treats %s as private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '200.45.12.1', '172.32.0.1', '192.169.0.1', '2800:810::1', '::ffff:8.8.8.8'])(
    'treats %s as public',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );

  it('refuses a name that resolves to loopback unless private targets are allowed', async () => {
    const lookup = (allow: boolean) =>
      new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((resolve) =>
        guardedLookup(allow)('localhost', { family: 4 }, (err, address) => resolve({ err, address })),
      );
    const refused = await lookup(false);
    expect(refused.err?.message).toBe('target localhost resolves to the private or loopback address 127.0.0.1');
    const allowed = await lookup(true);
    expect(allowed.err).toBeNull();
    expect(allowed.address).toBe('127.0.0.1');
  });
});
