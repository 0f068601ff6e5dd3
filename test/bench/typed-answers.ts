/**
 * The generated questions of typed-questions.ts asked over A2A of the Argo CD agent (rules mode, the default),
 * against the Argo CD simulator, each in a new conversation, each answer judged by the answer suite's judge against
 * the expected answer computed from the raw estate.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ClientFactory } from '@a2a-js/sdk/client';
import { ARGOCD_AGENT_SETTINGS, startArgoCdAgent } from '@flotilla/agent-argocd';
import { parseSettings, silentLogger } from '@flotilla/core';
import type { Estates } from './answer-questions.js';
import { ask, judge, type Verdict } from './answers.js';
import { tallyByConstruction, typedQuestions, type ConstructionTally, type TypedConstruction } from './typed-questions.js';

export interface TypedAnswerRow {
  readonly construction: TypedConstruction;
  readonly question: string;
  readonly verdict: Verdict;
  readonly why: string;
  readonly answer: string;
}

export interface TypedAnswersRun {
  readonly questions: number;
  readonly seed: number;
  readonly tally: ConstructionTally;
  readonly seconds: number;
  readonly rows: readonly TypedAnswerRow[];
}

/** Asks `n` generated questions (seeded) of an Argo CD agent started here against `argoUrl`. */
export async function runTypedAnswers(options: { readonly argoUrl: string; readonly token: string; readonly d: Estates; readonly n: number; readonly seed?: number; readonly progress?: (line: string) => void }): Promise<TypedAnswersRun> {
  const seed = options.seed ?? 31;
  const questions = typedQuestions(options.d, options.n, seed);
  const dataDir = await mkdtemp(join(tmpdir(), 'flotilla-typed-answers-'));
  const agent = await startArgoCdAgent(
    parseSettings(ARGOCD_AGENT_SETTINGS, { port: '0', 'argocd-url': options.argoUrl, 'argocd-token': options.token, 'data-dir': dataDir, 'log-level': 'silent' }, {}, 'typed answers'),
    silentLogger(),
    { now: () => options.d.now },
  );
  try {
    const client = await new ClientFactory().createFromUrl(agent.url);
    const began = performance.now();
    const rows: TypedAnswerRow[] = [];
    for (const [i, q] of questions.entries()) {
      const reply = await ask(client, q.ask, randomUUID());
      const { verdict, why } = judge(q.expect, reply.answer, reply.options);
      rows.push({ construction: q.construction, question: q.ask, verdict, why, answer: reply.answer.slice(0, 600) });
      if ((i + 1) % 500 === 0) options.progress?.(`answers (generated): ${i + 1}/${questions.length} questions\n`);
    }
    return { questions: questions.length, seed, tally: tallyByConstruction(rows), seconds: (performance.now() - began) / 1000, rows };
  } finally {
    await agent.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
