import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { startA2AServer, textRequest, type RunningA2AServer } from '@flotilla/agent-kit';
import { parseSettings, silentLogger } from '@flotilla/core';
import { SUPERVISOR_SETTINGS, startSupervisor, type RunningSupervisor } from './start.js';

/**
 * The supervisor's own turn deadline (--turn-timeout-ms) cuts a delegation short: the caller is told the turn
 * stopped, the turn counts once as timed_out, and the agent that was still working is not marked unreachable.
 */
describe('the supervisor past its turn deadline', () => {
  let agent: RunningA2AServer;
  let supervisor: RunningSupervisor;
  beforeAll(async () => {
    agent = await startA2AServer({
      agent: { name: 'Weather agent', description: 'Weather agent for tests', version: '0.0.1', skills: [{ id: 'weather', name: 'Weather agent', description: 'Weather answers', tags: ['weather', 'forecast'], examples: ['weather forecast for tomorrow'] }] },
      host: '127.0.0.1',
      port: 0,
      logger: silentLogger(),
      turnLimits: { drainMs: 100 },
      // Works until it is aborted (by its own deadline, or its server's close).
      answer: (_q, _c, _p, signal) => new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true })),
    });
    supervisor = await startSupervisor(
      parseSettings(SUPERVISOR_SETTINGS, { port: '0', agents: `weather=${agent.url}`, 'turn-timeout-ms': '1000', 'call-timeout-ms': '30000' }, {}, 's'),
      silentLogger(),
    );
  });
  afterAll(async () => {
    await supervisor?.close();
    await agent?.close();
  });

  it('answers "stopped after 1 s" (FAILED, timed_out), counts the turn once as timed_out, and keeps the agent ready', async () => {
    const client = await new ClientFactory().createFromUrl(supervisor.url);
    const result = await client.sendMessage(textRequest('weather forecast for tomorrow', randomUUID()));
    if (!('artifacts' in result)) throw new Error('the supervisor answered with a message, not a task');
    expect(result.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(result.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: 'I stopped after 1 s without finishing; ask a narrower question or try again.' });
    expect(result.artifacts[0]?.metadata?.error).toBe('timed_out');
    // The turn's own count comes once its delegation has stopped (at once on the abort).
    const counted = async () => (await supervisor.metrics.agentTurns.get()).values.filter((v) => v.labels.agent === 'supervisor' && v.value > 0);
    let turns = await counted();
    // Polled, never slept on: bounded only by a generous deadline for a loaded machine.
    for (const until = Date.now() + 30_000; turns.length === 0 && Date.now() < until; turns = await counted()) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(turns.map((v) => [v.labels.outcome, v.value])).toEqual([['timed_out', 1]]);
    const delegations = (await supervisor.metrics.supervisorDelegations.get()).values.filter((v) => v.value > 0);
    expect(delegations.map((v) => [v.labels.agent, v.labels.outcome, v.value])).toEqual([['weather', 'timeout', 1]]);
    expect(supervisor.registry.list().map((a) => [a.id, a.state])).toEqual([['weather', 'ready']]);
  });
});
