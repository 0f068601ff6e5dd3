import type { NetworkInterfaceInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseSettings, silentLogger } from '@flotilla/core';
import { A2A_SERVER_SETTINGS, advertisedBaseUrl, startA2AServer } from './index.js';

/** What an A2A server's card advertises: never a loopback address when bound to a wildcard. */
const nic = (address: string, family: 'IPv4' | 'IPv6', internal = false): NetworkInterfaceInfo =>
  ({ address, family, internal, netmask: '', mac: '00:00:00:00:00:00', cidr: null, ...(family === 'IPv6' ? { scopeid: 0 } : {}) }) as NetworkInterfaceInfo;
const podInterfaces = { lo: [nic('127.0.0.1', 'IPv4', true), nic('::1', 'IPv6', true)], eth0: [nic('fe80::1', 'IPv6'), nic('10.244.1.7', 'IPv4')] };

describe('the advertised base URL', () => {
  it('is --public-url when set, whatever the bind', () => {
    expect(advertisedBaseUrl({ host: '0.0.0.0', port: 8092, publicUrl: 'http://flotilla-argocd.ops.svc:8092/', interfaces: podInterfaces })).toEqual({
      url: 'http://flotilla-argocd.ops.svc:8092',
      source: 'public_url',
    });
  });

  it('is the listen address for a specific bind (loopback is fine for local use)', () => {
    expect(advertisedBaseUrl({ host: '127.0.0.1', port: 8092 }).url).toBe('http://127.0.0.1:8092');
    expect(advertisedBaseUrl({ host: '::1', port: 8092 }).url).toBe('http://[::1]:8092');
  });

  it('is the pod’s own address on a wildcard bind, never loopback or link-local', () => {
    expect(advertisedBaseUrl({ host: '0.0.0.0', port: 8092, interfaces: podInterfaces })).toEqual({ url: 'http://10.244.1.7:8092', source: 'interface_address' });
    expect(advertisedBaseUrl({ host: '::', port: 8092, interfaces: { lo: podInterfaces.lo, eth0: [nic('fe80::1', 'IPv6'), nic('fd00::7', 'IPv6')] } }).url).toBe('http://[fd00::7]:8092');
    expect(advertisedBaseUrl({ host: '0.0.0.0', port: 8092, interfaces: { lo: podInterfaces.lo }, hostname: 'pod-7' })).toEqual({ url: 'http://pod-7:8092', source: 'hostname' });
  });

  it('refuses to start when a wildcard bind has nothing but loopback to advertise', () => {
    expect(() => advertisedBaseUrl({ host: '0.0.0.0', port: 8092, interfaces: { lo: podInterfaces.lo }, hostname: 'localhost' })).toThrow(/--public-url/);
  });

  it('takes --public-url / FLOTILLA_PUBLIC_URL, refusing credentials, queries and non-http URLs', () => {
    expect(parseSettings(A2A_SERVER_SETTINGS, {}, { FLOTILLA_PUBLIC_URL: 'https://agents.example.com/argocd/' }, 't').publicUrl).toBe('https://agents.example.com/argocd');
    for (const bad of ['ftp://host:1', 'http://user:secret@host:1', 'http://host:1/?x=1', 'not a url']) {
      expect(() => parseSettings(A2A_SERVER_SETTINGS, { 'public-url': bad }, {}, 't')).toThrow(/--public-url \/ FLOTILLA_PUBLIC_URL/);
    }
    let message = '';
    try {
      parseSettings(A2A_SERVER_SETTINGS, { 'public-url': 'http://user:hunter2@host:1' }, {}, 't');
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/public-url/);
    expect(message).not.toContain('hunter2');
  });

  it('a server bound to 0.0.0.0 advertises a dialable, non-loopback address in its card', async () => {
    const server = await startA2AServer({
      agent: { name: 'wildcard', description: 'test', version: '0', skills: [] },
      answer: () => Promise.resolve({ answer: 'ok', options: [], metadata: {} }),
      host: '0.0.0.0',
      port: 0,
      logger: silentLogger(),
    });
    try {
      const port = new URL(server.url).port;
      const card = (await (await fetch(`http://127.0.0.1:${port}/.well-known/agent-card.json`)).json()) as { supportedInterfaces: { url: string }[] };
      expect(card.supportedInterfaces.length).toBeGreaterThan(0);
      for (const { url } of card.supportedInterfaces) {
        expect(new URL(url).hostname).not.toMatch(/^(127\.|localhost$|\[::1\]$)/);
        expect(new URL(url).port).toBe(port);
      }
      // What it advertises really reaches it.
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
