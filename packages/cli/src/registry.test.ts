import { describe, expect, it } from 'vitest';
import { parseSettings } from '@flotilla/core';
import { DOMAIN_AGENTS, SUPERVISOR_DEFAULT_PORT } from './commands/registry.js';
import { UP_SETTINGS, upPort } from './commands/up.js';
import { CATALOGUE } from './commands/catalogue.js';

describe('the registry of domain agents', () => {
  it("names each agent's default ports as its own settings do, and `up` places each agent as far from the supervisor", async () => {
    for (const entry of DOMAIN_AGENTS) {
      const [agent, mcp] = await Promise.all([entry.agent.load(), entry.mcp.load()]);
      expect(parseSettings(agent.settings, {}, {}, 'test').port).toBe(entry.ports.agent);
      const upstream = { [`${entry.name}-url`]: 'http://127.0.0.1:1', [`${entry.name}-token`]: 'registry-test-token' };
      expect(parseSettings(mcp.settings, upstream, {}, 'test').port).toBe(entry.ports.mcp);
      expect(upPort(entry, SUPERVISOR_DEFAULT_PORT)).toBe(entry.ports.agent);
      expect(upPort(entry, 0)).toBe(0);
    }
    expect(parseSettings(UP_SETTINGS, {}, {}, 'test').port).toBe(SUPERVISOR_DEFAULT_PORT);
  });

  it('gives every agent its agent, sim and mcp commands, and `up` its upstream flags', () => {
    const paths = CATALOGUE.map((c) => c.path.join(' '));
    for (const entry of DOMAIN_AGENTS) {
      expect(paths).toEqual(expect.arrayContaining([`agent ${entry.name}`, `sim ${entry.name}`, `mcp ${entry.name}`]));
      expect(Object.values(UP_SETTINGS).map((s) => s.flag)).toEqual(expect.arrayContaining([`${entry.name}-url`, `${entry.name}-token`]));
    }
  });
});
