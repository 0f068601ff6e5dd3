import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { ClientFactory } from '@a2a-js/sdk/client';
import { parseSettings, silentLogger } from '@flotilla/core';
import { textRequest } from '@flotilla/agent-kit';
import { METRIC } from '@flotilla/metrics';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent, type RunningAgent } from './start.js';

/**
 * The Argo CD agent against an Argo CD that never answers, with --turn-timeout-ms: the turn is stopped at its
 * deadline, answered so, and counted once as timed_out.
 */
describe('the Argo CD agent past its turn deadline', () => {
  let hanging: Server;
  let url: string;
  const sockets = new Set<Socket>();
  let requests = 0;
  let agent: RunningAgent;

  beforeAll(async () => {
    // Takes every request and never answers.
    hanging = createServer(() => {
      requests += 1;
    });
    hanging.on('connection', (socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const address = hanging.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
    agent = await startArgoCdAgent(
      parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': url, 'argocd-token': 'deadline-argocd-token', 'turn-timeout-ms': '1000', 'log-level': 'silent' }, {}, 'test'),
      silentLogger(),
    );
  });
  afterAll(async () => {
    await agent?.close();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => hanging.close(() => resolve()));
  });

  it('answers "stopped after 1 s" (FAILED, timed_out) and counts the turn once, as timed_out', async () => {
    const client = await new ClientFactory().createFromUrl(agent.url);
    const result = await client.sendMessage(textRequest('list all applications', randomUUID()));
    if (!('artifacts' in result)) throw new Error('the agent answered with a message, not a task');
    const artifact = result.artifacts[0];
    expect(result.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(artifact?.parts[0]?.content).toEqual({ $case: 'text', value: 'I stopped after 1 s without finishing; ask a narrower question or try again.' });
    expect(artifact?.metadata?.error).toBe('timed_out');
    expect(requests).toBeGreaterThan(0);
    // The turn's own count comes when its work has stopped (at once on the abort, or within the grace).
    const turns = async (): Promise<Map<string, number>> => {
      const text = await (await fetch(`${agent.url}/metrics`)).text();
      const counted = new Map<string, number>();
      for (const line of text.split('\n')) {
        const match = new RegExp(`^${METRIC.agentTurns}\\{[^}]*outcome="([a-z_]+)"[^}]*\\} (\\d+)`).exec(line);
        if (match !== null && Number(match[2]) > 0) counted.set(match[1] ?? '', (counted.get(match[1] ?? '') ?? 0) + Number(match[2]));
      }
      return counted;
    };
    let counted = await turns();
    // Polled, never slept on: bounded only by a generous deadline for a loaded machine.
    for (const until = Date.now() + 30_000; counted.size === 0 && Date.now() < until; counted = await turns()) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(Object.fromEntries(counted)).toEqual({ timed_out: 1 });
  });
});
