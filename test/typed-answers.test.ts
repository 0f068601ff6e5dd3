import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateArgoEstate, generateNetBoxEstate, startArgoCdSimulator, startNetBoxSimulator, type RunningNetBoxSimulator, type RunningSimulator } from '@flotilla/simulators';
import { estatesOf } from './bench/answer-questions.js';
import { estateEpoch } from './bench/answers.js';
import { runNetBoxTypedAnswers, runTypedAnswers, type TypedAnswersRun } from './bench/typed-answers.js';
import { TYPED_CONSTRUCTIONS } from './bench/typed-questions.js';
import { NETBOX_CONSTRUCTIONS } from './bench/netbox-typed-questions.js';

/**
 * Generated questions (typed-questions.ts and netbox-typed-questions.ts: sampled from a model of the problem, rendered through independent
 * phrasings, expected answers computed from the raw estate) asked over A2A of the Argo CD and NetBox agents: none may be
 * confidently wrong, and at least 90% of each construction must be answered correctly. `pnpm bench -- --suites
 * answers` asks 3,000 of them.
 */
const TOKEN = 'typed-answers-token-0123456789';
const argo = generateArgoEstate();
const netbox = generateNetBoxEstate();
const d = estatesOf(argo, netbox, estateEpoch());
let sim: RunningSimulator;
let netboxSim: RunningNetBoxSimulator;

beforeAll(async () => {
  sim = await startArgoCdSimulator({ token: TOKEN, estate: argo });
  netboxSim = await startNetBoxSimulator({ token: TOKEN, estate: netbox });
});
afterAll(async () => {
  await sim.close();
  await netboxSim.close();
});

/** None confidently wrong, and every construction asked and answered correctly at least 90% of the time. */
function expectHeld<C extends string>(run: TypedAnswersRun<C>, constructions: readonly C[]): void {
  const wrong = run.rows.filter((r) => r.verdict === 'wrong').map((r) => `[${r.construction}] ${r.question}: ${r.why} :: ${r.answer.slice(0, 200)}`);
  expect(wrong).toEqual([]);
  for (const c of constructions) {
    const t = run.tally[c];
    expect(t.questions, c).toBeGreaterThan(0);
    expect(t.correct / t.questions, `${c}: ${JSON.stringify(t)}`).toBeGreaterThanOrEqual(0.9);
  }
}

describe('generated questions, asked of the Argo CD agent over A2A', () => {
  it('none is confidently wrong, and each construction is answered correctly at least 90% of the time', async () => {
    expectHeld(await runTypedAnswers({ argoUrl: sim.url, token: TOKEN, d, n: 420, seed: 2026 }), TYPED_CONSTRUCTIONS);
  });
});

describe('generated questions, asked of the NetBox agent over A2A', () => {
  it('none is confidently wrong, and each construction is answered correctly at least 90% of the time', async () => {
    expectHeld(await runNetBoxTypedAnswers({ netboxUrl: netboxSim.url, token: TOKEN, d, n: 320, seed: 2026 }), NETBOX_CONSTRUCTIONS);
  });
});
