import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { textRequest } from '@flotilla/agent-kit';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { startFakeAnthropic, startNetBoxSimulator } from '@flotilla/simulators';
import { NETBOX_AGENT_SETTINGS, startNetBoxAgent } from './start.js';

type AnthropicBody = { system?: unknown; tools?: { name: string }[]; messages: { role: string; content: unknown }[] };

describe('flotilla agent netbox --local in LLM mode (Anthropic)', () => {
  it('answers over A2A through the model: the capability index first, the tool it loaded, and the result it read', async () => {
    const llm = await startFakeAnthropic({ apiKey: 'sk-ant-netbox-test' });
    const env = { FLOTILLA_MODE: 'llm', FLOTILLA_LLM_PROVIDER: 'anthropic', FLOTILLA_LLM_BASE_URL: llm.baseUrl, FLOTILLA_LLM_API_KEY: 'sk-ant-netbox-test' };
    const config = parseSettings(NETBOX_AGENT_SETTINGS, { port: '0', local: 'true', 'log-level': 'silent' }, env, 'test');
    const agent = await startNetBoxAgent(config, silentLogger(), { simulator: ({ token }) => startNetBoxSimulator({ token }) });
    try {
      const client = await new ClientFactory().createFromUrl(agent.url);
      const reply = JSON.stringify(await client.sendMessage(textRequest('which vlans are there?', randomUUID())));
      expect(reply).toContain('From list_vlans');
      const bodies = llm.requests.map((r) => r.body as AnthropicBody);
      expect(bodies[0]?.tools?.map((t) => t.name)).toEqual(['find_tools', 'load_tools']);
      // The system prompt carries the NetBox rules and the index, a line per tool.
      expect(JSON.stringify(bodies[0]?.system)).toContain('Count before you list');
      expect(JSON.stringify(bodies[0]?.system)).toContain('- list_vlans: ');
      expect(bodies[2]?.tools?.map((t) => t.name)).toContain('list_vlans');
      const metrics = await (await fetch(`${agent.url}/metrics`)).text();
      expect(metrics).toContain(`${METRIC.agentTurns}{agent="netbox",skill="none",path="llm",outcome="answered"} 1`);
    } finally {
      await agent.close();
      await llm.close();
    }
  });
});
