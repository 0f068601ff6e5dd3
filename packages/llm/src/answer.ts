import type { Client } from '@modelcontextprotocol/client';
import type { Logger } from '@flotilla/core';
import { abortedOutcome, type AnswerTurn, type CapabilityIndex, type MemoryStore } from '@flotilla/agent-kit';
import type { FlotillaMetrics, TurnOutcome } from '@flotilla/metrics';
import type { TokenCounter } from '@flotilla/tokens';
import { createLlmAgent, type LlmMemory, type LlmTurn } from './agent.js';
import { createChatModel } from './chat.js';
import { contextBudgetFor, type LlmSettings } from './settings.js';
import type { SharedConversation } from './hybrid.js';

export interface LlmAnswerOptions {
  readonly agent: string;
  readonly settings: LlmSettings;
  readonly mcp: Client;
  readonly index: CapabilityIndex;
  /** The agent's own part of the system prompt. */
  readonly prompt: string;
  readonly counter: TokenCounter;
  readonly metrics: FlotillaMetrics;
  readonly logger: Logger;
  /** The memory guard's budget factor (0.5 while memory is tight). */
  readonly budgetFactor?: (() => number) | undefined;
  /** Where conversations are kept between turns (Redis, shared by replicas); bounded in memory by default. */
  readonly memoryStore?: MemoryStore<LlmMemory> | undefined;
}

/** An agent's answer in LLM mode, and the conversation record it keeps (which hybrid mode shares with the rules). */
export interface LlmAnswer {
  readonly turn: AnswerTurn;
  readonly conversation: SharedConversation;
}

/**
 * An agent's A2A answer in LLM mode, or undefined when the settings choose the embedded rules (no provider).
 * Turns are metered like the rules workflow's, on the `llm` path.
 */
export function llmAnswerTurn(options: LlmAnswerOptions): LlmAnswer | undefined {
  const { settings, counter, metrics, agent } = options;
  const budget = contextBudgetFor(settings.llmProvider, settings);
  const chat = createChatModel(settings, { maxOutputTokens: budget.reservedOutputTokens });
  if (chat === undefined) return undefined;
  const llm = createLlmAgent({
    agent,
    chat,
    mcp: options.mcp,
    index: options.index,
    prompt: options.prompt,
    discovery: settings.toolDiscovery,
    budget,
    counter,
    metrics,
    logger: options.logger.child({ component: 'llm' }),
    budgetFactor: options.budgetFactor,
    memoryStore: options.memoryStore,
    storeMetrics: metrics,
  });
  options.logger.info({ provider: chat.provider, model: chat.model, maxContextTokens: budget.maxContextTokens, discovery: settings.toolDiscovery }, 'LLM mode');
  const answerTurn: AnswerTurn = async (question, contextId, _progress, signal) => {
    const started = performance.now();
    let turn: LlmTurn;
    try {
      turn = await llm.ask(question, contextId, signal);
    } catch (error) {
      // Aborted (deadline, shutdown): counted here, once; the executor answers it.
      const aborted = abortedOutcome(signal);
      if (aborted !== undefined) metrics.agentTurns.inc({ agent, skill: 'none', path: 'llm', outcome: aborted });
      throw error;
    }
    const outcome: TurnOutcome = abortedOutcome(signal) ?? (turn.error !== undefined ? 'failed' : 'answered');
    const answerTokens = counter.count(turn.answer);
    metrics.agentTurns.inc({ agent, skill: 'none', path: 'llm', outcome });
    metrics.agentTurnDuration.observe({ agent, skill: 'none', path: 'llm' }, (performance.now() - started) / 1000);
    metrics.agentAnswerTokens.observe({ agent }, answerTokens);
    return {
      answer: turn.answer,
      options: turn.options,
      metadata: {
        strategy: 'llm',
        model: chat.model,
        model_calls: turn.modelCalls,
        tool_calls: turn.toolCalls,
        discovery: turn.discovery,
        request_tokens_max: turn.maxRequestTokens,
        answer_tokens: answerTokens,
      },
    };
  };
  return { turn: answerTurn, conversation: llm.conversation };
}
