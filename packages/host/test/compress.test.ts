/**
 * The host's word on compression (docs/wire.md "Large payloads", issue 16 item 3): the welcome
 * says `compressPayloads`, false for a loopback socket under `auto`; `on` and `off` force it.
 * A page that compresses when told not to is still read (every receiver decodes the wrapper:
 * refusing it would break pages of other SDKs that gzip, as the protocol lets them).
 */
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import type { Host } from '../src/index.js';
import { createHost } from '../src/index.js';
import { wantsCompression } from '../src/server/host.js';
import { FakePage, tool } from './helpers.js';

const rows = Array.from({ length: 2_000 }, (_, i) => ({ id: i, name: `row ${i}` }));

/** This machine's first non-loopback IPv4 address, if it has one. */
const external = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

describe('wantsCompression', () => {
  it('auto: not from loopback (IPv4, IPv6, IPv4-mapped), yes from anywhere else', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      expect(wantsCompression('auto', address), address).toBe(false);
      expect(wantsCompression('on', address), address).toBe(true);
    }
    for (const address of ['192.0.2.2', '::ffff:10.0.0.1', 'fd00::2', '128.0.0.1', undefined]) {
      expect(wantsCompression('auto', address), String(address)).toBe(true);
      expect(wantsCompression('off', address), String(address)).toBe(false);
    }
  });
});

describe('the welcome says compressPayloads', () => {
  let host: Host | undefined;
  let page: FakePage | undefined;
  afterEach(async () => {
    page?.socket.terminate();
    await host?.close();
    host = undefined;
  });

  const welcomeOf = async (url: string): Promise<any> => {
    page = await FakePage.connect(url, { tools: [tool('demo.rows', () => ({ rows }))] });
    await until(() => page?.requests('session.welcome').length === 1);
    return page.requests('session.welcome')[0].payload;
  };

  it('auto on loopback: false; on: true; off: false', async () => {
    host = await createHost({ origins: ['*'], port: 0 });
    expect((await welcomeOf(host.url)).compressPayloads).toBe(false);
    page?.socket.terminate();
    await host.close();
    host = await createHost({ origins: ['*'], port: 0, compress: 'on' });
    expect((await welcomeOf(host.url)).compressPayloads).toBe(true);
    page?.socket.terminate();
    await host.close();
    host = await createHost({ origins: ['*'], port: 0, compress: 'off' });
    expect((await welcomeOf(host.url)).compressPayloads).toBe(false);
  });

  it.skipIf(!external)('auto from a non-loopback address: true', async () => {
    host = await createHost({ origins: ['*'], port: 0, hostname: '0.0.0.0' });
    const url = new URL(host.url);
    url.hostname = external as string;
    expect((await welcomeOf(url.href)).compressPayloads).toBe(true);
  });

  it('a page that compresses when told not to is read all the same', async () => {
    host = await createHost({ origins: ['*'], port: 0 });
    // The fake page's bridge gzips in line whatever the welcome says.
    expect((await welcomeOf(host.url)).compressPayloads).toBe(false);
    const session = await host.waitForSession();
    expect((await session.call('demo.rows')).result).toEqual({ rows });
    expect(session.stats.encodedResponses).toBe(1);
  });

  it('refuses an unknown mode', async () => {
    await expect(createHost({ port: 0, compress: 'maybe' as 'on' })).rejects.toThrow(
      /compress mode/,
    );
  });
});
