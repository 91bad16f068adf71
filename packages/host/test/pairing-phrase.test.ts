import { join } from 'node:path';
import { pairingPhrase } from '@toolwire/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../../test-support/wait.js';
import { linkPhrase } from '../src/shared/link-phrase.js';
import { cli, hostInProcess, mcpInProcess, tempDir } from './cli-helpers.js';

// The host prints the pairing phrase beside every link and extension address it prints (on
// stderr where the link is on stdout, `phrase` in --json), and the MCP pair tool answers it: the
// page's prompt and the extension's panel show the same words for the same code.

const ORIGIN = 'http://shop.test';
const PHRASE =
  /^[bdfghjklmnprstvz][aeio][bdfghjklmnprstvz][aeio](-[bdfghjklmnprstvz][aeio][bdfghjklmnprstvz][aeio]){2}$/;
const stops: (() => unknown)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

const stateEnv = () => ({ TOOLWIRE_STATE: join(tempDir('toolwire-phrase-'), 'host.json') });

async function setup(extra: string[] = []) {
  const env = stateEnv();
  const host = await hostInProcess(env, extra);
  stops.push(host.stop);
  return { env, host };
}

/** The code in a page link's fragment, or in an extension address. */
function codeOf(printed: string): string {
  const url = new URL(printed);
  const address = url.protocol.startsWith('ws')
    ? url
    : new URL(new URLSearchParams(url.hash.slice(1)).get('toolwire') as string);
  return address.searchParams.get('pair') as string;
}

describe('linkPhrase', () => {
  it('finds the code in an address, a page link and a bare fragment; none without a code', () => {
    const code = 'kAb0-_QrStUvWxYz012345';
    const address = `ws://127.0.0.1:4000/toolwire?pair=${code}`;
    const fragment = `#toolwire=${encodeURIComponent(address)}`;
    expect(linkPhrase(address)).toBe(pairingPhrase(code));
    expect(linkPhrase(fragment)).toBe(pairingPhrase(code));
    expect(linkPhrase(`http://shop.test/a?x=1${fragment}`)).toBe(pairingPhrase(code));
    expect(linkPhrase('ws://127.0.0.1:4000/toolwire?token=abc')).toBeUndefined();
    expect(linkPhrase('%E0%A4%A')).toBeUndefined(); // not decodable: no throw
  });
});

describe('the host prints the pairing phrase', () => {
  it('toolwire pair --page: the link on stdout, its phrase on stderr and in --json', async () => {
    const { env } = await setup();
    const paired = await cli(['pair', '--page', `${ORIGIN}/cart`], env);
    expect(paired.code, paired.err).toBe(0);
    const phrase = pairingPhrase(codeOf(paired.out.trim()));
    expect(phrase).toMatch(PHRASE);
    expect(paired.err.split('\n')).toContain(`phrase: ${phrase}`);
    expect(paired.out).not.toContain('phrase');

    const json = await cli(['pair', '--page', `${ORIGIN}/cart`, '--json'], env);
    expect(json.code, json.err).toBe(0);
    const answer = JSON.parse(json.out);
    expect(answer.phrase).toBe(pairingPhrase(codeOf(answer.link)));
    // A new code, a new phrase.
    expect(answer.phrase).not.toBe(phrase);
  });

  it('toolwire pair (a fragment) and toolwire pair --extension', async () => {
    const { env } = await setup();
    const fragment = await cli(['pair', '--json'], env);
    const answer = JSON.parse(fragment.out);
    const address = new URLSearchParams(answer.fragment.slice(1)).get('toolwire') as string;
    expect(answer.phrase).toBe(pairingPhrase(new URL(address).searchParams.get('pair') as string));

    const id = 'abcdefghijklmnopabcdefghijklmnop';
    const extension = await cli(['pair', '--extension', id], env);
    expect(extension.code, extension.err).toBe(0);
    expect(extension.err.split('\n')).toContain(
      `phrase: ${pairingPhrase(codeOf(extension.out.trim()))}`,
    );
    const json = JSON.parse((await cli(['pair', '--extension', id, '--json'], env)).out);
    expect(json.phrase).toBe(pairingPhrase(codeOf(json.address)));
  });

  it('toolwire host --page prints the phrase under the link', async () => {
    const { host } = await setup(['--page', `${ORIGIN}/`]);
    await until(() => host.err().includes('phrase: '), 'the phrase line');
    const link = /or open: (\S+)/.exec(host.err())?.[1] as string;
    expect(host.err().split('\n')).toContain(`phrase: ${pairingPhrase(codeOf(link))}`);
  });

  it('toolwire mcp --page (a host of its own) prints the phrase under the link', async () => {
    const client = mcpInProcess(['--port', '0', '--page', `${ORIGIN}/`], stateEnv());
    stops.push(() => client.stop());
    await client.open();
    await until(() => client.err().includes('phrase: '), 'the phrase line');
    const link = /or open: (\S+)/.exec(client.err())?.[1] as string;
    expect(client.err().split('\n')).toContain(`phrase: ${pairingPhrase(codeOf(link))}`);
  });

  it('the MCP pair tool answers the phrase, for a page and for the extension', async () => {
    const client = mcpInProcess(['--port', '0'], stateEnv());
    stops.push(() => client.stop());
    await client.open();
    for (const args of [
      { page: `${ORIGIN}/` },
      { extension: 'abcdefghijklmnopabcdefghijklmnop' },
    ]) {
      const answer = (await client.rpc('tools/call', { name: 'toolwire_pair', arguments: args }))
        .result;
      expect(answer.isError).toBe(false);
      const phrase = pairingPhrase(codeOf(answer.structuredContent.link));
      expect(phrase).toMatch(PHRASE);
      expect(answer.structuredContent.phrase).toBe(phrase);
      expect(answer.content[0].text).toContain(`phrase: ${phrase}`);
    }
  });
});
