import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ClientFactory } from '@a2a-js/sdk/client';
import { parseSettings, silentLogger } from '@flotilla/core';
import { METRIC } from '@flotilla/metrics';
import { textRequest } from '@flotilla/agent-kit';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent } from './start.js';

describe('flotilla agent argocd --local', () => {
  it('serves the card, answers, counts the turn by path and outcome, and closes cleanly', async () => {
    const config = parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', local: 'true', 'log-level': 'silent' }, {}, 'test');
    const agent = await startArgoCdAgent(config, silentLogger());
    try {
      const client = await new ClientFactory().createFromUrl(agent.url);
      const reply = await client.sendMessage(textRequest('which clusters are connected?', randomUUID()));
      expect(JSON.stringify(reply)).toContain('13 clusters');
      const metrics = await (await fetch(`${agent.url}/metrics`)).text();
      expect(metrics).toContain(`${METRIC.agentTurns}{agent="argocd",skill="argocd-inventory",path="direct",outcome="answered"} 1`);
      expect(metrics).toContain(METRIC.agentAnswerTokens);
    } finally {
      await agent.close();
    }
    await expect(fetch(`${agent.url}/healthz`)).rejects.toThrow();
  });
});
