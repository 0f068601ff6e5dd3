import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FlotillaError, parseSettings } from '@flotilla/core';
import { loadTokenCounter } from '@flotilla/tokens';
import {
  SLACK_BOT_SETTINGS,
  SLACK_LIMITS,
  capQuestion,
  checkSlackBotConfig,
  escapeMrkdwn,
  followUpsFrom,
  optionButtons,
  questionFromSlackText,
  renderAnswer,
  splitText,
  threadContextId,
  type SlackLimits,
  type SlackMessage,
} from './index.js';
import { messageProblem } from './fake-slack.test-util.js';

const sectionTexts = (messages: readonly SlackMessage[]): string[] =>
  messages.flatMap((m) => m.blocks.flatMap((b) => (b.type === 'section' ? [b.text.text] : [])));
/** Text with what rendering may change taken out: whitespace (split points, trimming) and mrkdwn markers. */
const normalise = (text: string): string => text.replace(/[\s*_#`]/g, '');

/** Lines that look like an agent's answers: prose, headings, bold, table rows, code fences, long runs, unicode. */
const answerLine = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 120 }).map((s) => s.replace(/`/g, "'")),
  fc.string({ maxLength: 60 }).map((s) => `| ${s.replace(/[|`]/g, '/')} | x |`),
  fc.constant('|---|---|'),
  fc.constant('```'),
  fc.string({ maxLength: 40 }).map((s) => `## ${s.replace(/`/g, "'")}`),
  fc.string({ maxLength: 40 }).map((s) => `**${s.replace(/`/g, "'")}** & <b>`),
  fc.integer({ min: 1, max: 9000 }).map((n) => 'w&<'.repeat(Math.ceil(n / 3)).slice(0, n)),
  fc.integer({ min: 1, max: 200 }).map((n) => '😀'.repeat(n)),
);
const answerText = fc.array(answerLine, { maxLength: 80 }).map((lines) => lines.join('\n'));

function checkWithinSlack(messages: readonly SlackMessage[], limits: SlackLimits): void {
  for (const m of messages) {
    expect(messageProblem(m.text, JSON.stringify(m.blocks))).toBeUndefined();
    expect(m.text.length).toBeLessThanOrEqual(limits.messageTextMax);
    expect(m.blocks.length).toBeLessThanOrEqual(limits.blocksMax);
    expect(m.blocks.filter((b) => b.type === 'section').length).toBeLessThanOrEqual(limits.contentBlocksMax);
    for (const text of sectionTexts([m])) {
      expect(text.length).toBeGreaterThan(0);
      expect(text.length).toBeLessThanOrEqual(limits.sectionTextMax);
    }
  }
}

describe('splitText', () => {
  it('cuts any text into chunks of at most max that concatenate back to it, at line ends unless a line is longer than max', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 3000 }), fc.integer({ min: 8, max: 400 }), (text, max) => {
        const chunks = splitText(text, max);
        expect(chunks.join('')).toBe(text);
        let offset = 0;
        for (const chunk of chunks) {
          expect(chunk.length).toBeGreaterThan(0);
          expect(chunk.length).toBeLessThanOrEqual(max);
          offset += chunk.length;
          const atLineEnd = text[offset - 1] === '\n' || offset === text.length;
          if (!atLineEnd) {
            // A cut inside a line only when that line does not fit in one chunk.
            const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
            const nextBreak = text.indexOf('\n', offset);
            const lineEnd = nextBreak === -1 ? text.length : nextBreak + 1;
            expect(lineEnd - lineStart).toBeGreaterThan(max);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never cuts a surrogate pair or an entity it escaped', () => {
    const text = `${'😀'.repeat(50)}${'&amp;'.repeat(40)}`;
    for (const max of [8, 9, 10, 11, 13, 17]) {
      for (const chunk of splitText(text, max)) {
        expect(/^[\uDC00-\uDFFF]/.test(chunk)).toBe(false);
        expect(/[\uD800-\uDBFF]$/.test(chunk)).toBe(false);
        expect(chunk.replace(/&amp;/g, '').includes('&')).toBe(false);
      }
    }
  });

  it('refuses a max too small to make progress', () => {
    expect(() => splitText('abc', 3)).toThrow(RangeError);
  });
});

describe('renderAnswer', () => {
  it('keeps any answer within Slack limits and whole: every block, message and button in bounds; the text all there, or the file exactly the answer', () => {
    fc.assert(
      fc.property(answerText, fc.array(fc.string({ minLength: 1, maxLength: 3000 }), { maxLength: 8 }), (answer, prompts) => {
        const rendered = renderAnswer(answer, prompts.map((p) => ({ label: p, prompt: p })));
        if (rendered.kind === 'file') {
          expect(rendered.file.content).toBe(answer);
          checkWithinSlack([rendered.summary], SLACK_LIMITS);
          return;
        }
        expect(rendered.messages.length).toBeGreaterThan(0);
        expect(rendered.messages.length).toBeLessThanOrEqual(SLACK_LIMITS.messagesMax);
        checkWithinSlack(rendered.messages, SLACK_LIMITS);
        if (normalise(answer).length > 0) expect(normalise(sectionTexts(rendered.messages).join(''))).toBe(normalise(escapeMrkdwn(answer)));
      }),
      { numRuns: 200 },
    );
  });

  it('packs blocks into messages by the block and character budgets (small limits)', () => {
    const limits: SlackLimits = { ...SLACK_LIMITS, sectionTextMax: 40, contentBlocksMax: 3, messageContentMax: 100, messagesMax: Number.MAX_SAFE_INTEGER };
    fc.assert(
      fc.property(answerText, (answer) => {
        const rendered = renderAnswer(answer, [], limits);
        expect(rendered.kind).toBe('messages');
        if (rendered.kind !== 'messages') return;
        for (const m of rendered.messages) {
          const sections = sectionTexts([m]);
          expect(sections.length).toBeLessThanOrEqual(3);
          expect(sections.every((t) => t.length <= 40)).toBe(true);
          expect(sections.join('').length).toBeLessThanOrEqual(100);
        }
        if (normalise(answer).length > 0) expect(normalise(sectionTexts(rendered.messages).join(''))).toBe(normalise(escapeMrkdwn(answer)));
      }),
      { numRuns: 150 },
    );
  });

  it('shows Markdown tables as code blocks and prose as mrkdwn, escaped', () => {
    const rendered = renderAnswer('# Devices at ams1\n**2 devices** & <none> offline\n\n| name | status |\n|---|---|\n| ams1-sw-001 | active |\n| ams1-sw-002 | offline |');
    expect(rendered.kind).toBe('messages');
    const texts = rendered.kind === 'messages' ? sectionTexts(rendered.messages) : [];
    expect(texts).toEqual(['*Devices at ams1*\n*2 devices* &amp; &lt;none&gt; offline', '```\n| name | status |\n|---|---|\n| ams1-sw-001 | active |\n| ams1-sw-002 | offline |\n```']);
  });

  it('puts an answer of ~8,000 characters in several messages and one of 60,000 in a file', () => {
    const row = (i: number): string => `| row-${String(i).padStart(5, '0')} | ${'x'.repeat(64)} |`;
    const table = (rows: number): string => ['| row | payload |', '|---|---|', ...Array.from({ length: rows }, (_, i) => row(i + 1))].join('\n');
    const medium = renderAnswer(table(100));
    expect(medium.kind).toBe('messages');
    if (medium.kind === 'messages') {
      expect(medium.messages.length).toBeGreaterThan(1);
      expect(medium.messages.length).toBeLessThanOrEqual(5);
      const all = sectionTexts(medium.messages).join('\n');
      for (let i = 1; i <= 100; i += 1) expect(all).toContain(row(i));
      // Each part says which it is; only the last carries the buttons.
      expect(medium.messages.map((m) => m.blocks.some((b) => b.type === 'context'))).toEqual(medium.messages.map(() => true));
    }
    const huge = renderAnswer(table(760), [{ label: 'Summary instead', prompt: 'summary instead' }]);
    expect(huge.kind).toBe('file');
    if (huge.kind === 'file') {
      expect(huge.file.content.length).toBeGreaterThan(60_000);
      expect(huge.summary.text).toContain('answer.md');
      expect(huge.summary.blocks.at(-1)?.type).toBe('actions');
    }
  });

  it('answers an empty answer with a note instead of an empty message', () => {
    const rendered = renderAnswer('  \n\n ');
    expect(rendered.kind === 'messages' ? rendered.messages[0]?.text : '').toMatch(/empty answer/);
  });
});

describe('follow-up buttons', () => {
  it('prefers the data part’s options (label and prompt), else the metadata strings', () => {
    const data = { limitation: { kinds: ['token_overflow'], strategies: ['progressive'], options: [{ id: 'next_batch', label: 'Next batch', prompt: 'next batch' }], session: null } };
    expect(followUpsFrom({ options: ['ignored'] }, data)).toEqual([{ label: 'Next batch', prompt: 'next batch' }]);
    expect(followUpsFrom({ options: ['next page', 'summary'] }, undefined)).toEqual([
      { label: 'next page', prompt: 'next page' },
      { label: 'summary', prompt: 'summary' },
    ]);
    expect(followUpsFrom({ options: 'not a list' }, { limitation: { options: 'nope' } })).toEqual([]);
  });

  it('makes at most 5 buttons, labels of at most 75 characters, values of at most 2,000, unique action ids', () => {
    const options = [
      { label: 'x'.repeat(200), prompt: 'long label' },
      { label: 'Too long a prompt', prompt: 'p'.repeat(2001) },
      { label: 'Dup', prompt: 'long label' },
      { label: '', prompt: 'no label' },
      ...Array.from({ length: 6 }, (_, i) => ({ label: `Option ${i}`, prompt: `option ${i}` })),
    ];
    const block = optionButtons(options);
    const elements = block?.elements ?? [];
    expect(elements.map((e) => e.value)).toEqual(['long label', 'no label', 'option 0', 'option 1', 'option 2']);
    expect(elements[0]?.text.text.length).toBe(75);
    expect(elements[1]?.text.text).toBe('no label');
    expect(elements.map((e) => e.action_id)).toEqual(['flotilla_option_0', 'flotilla_option_1', 'flotilla_option_2', 'flotilla_option_3', 'flotilla_option_4']);
    expect(optionButtons([])).toBeUndefined();
    expect(messageProblem('x', JSON.stringify([block]))).toBeUndefined();
  });
});

describe('questions from Slack', () => {
  it('drops the bot mention and undoes Slack escaping and link markup', () => {
    expect(questionFromSlackText('<@UBOT> interfaces of   every switch in ams1', 'UBOT')).toBe('interfaces of every switch in ams1');
    expect(questionFromSlackText('hey <@UBOT|flotilla>, is <http://ams1-sw-001.example.com|ams1-sw-001.example.com> up &amp; &lt;ok&gt;?', 'UBOT')).toBe('hey , is ams1-sw-001.example.com up & <ok>?');
    expect(questionFromSlackText('<@U999> ask <@UALICE> in <#C1|ops>', undefined)).toBe('ask <@UALICE> in #ops');
    expect(questionFromSlackText('<@UBOT>', 'UBOT')).toBe('');
  });

  it('names a thread’s conversation by team, channel and thread', () => {
    expect(threadContextId('T1', 'C2', '1700000000.000100')).toBe('slack:T1:C2:1700000000.000100');
  });

  it('caps a question at the token limit, cut at the beginning, and says so', async () => {
    const counter = await loadTokenCounter();
    const long = Array.from({ length: 500 }, (_, i) => `device${i}`).join(' ');
    const capped = capQuestion(long, counter, 50);
    expect(capped.cut).toBe(true);
    expect(counter.count(capped.question)).toBeLessThanOrEqual(50);
    expect(long.startsWith(capped.question)).toBe(true);
    expect(capQuestion('list sites', counter, 50)).toEqual({ question: 'list sites', cut: false });
    // Within the token cap but past the A2A kit's 2,000 characters: cut there too.
    const wide = 'ab '.repeat(20_000);
    const cappedWide = capQuestion(wide, counter, 100_000);
    expect(cappedWide.cut).toBe(true);
    expect(cappedWide.question.length).toBeLessThanOrEqual(2000);
    expect(cappedWide.question.length).toBeGreaterThan(1990);
  });
});

describe('settings', () => {
  const base = { 'bot-token': 'xoxb-1' };
  it('has the documented defaults', () => {
    const config = parseSettings(SLACK_BOT_SETTINGS, { ...base, 'signing-secret': 's' }, {}, 'test');
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8095, agentUrl: 'http://127.0.0.1:8090', socketMode: false, questionMaxTokens: 1000, agentTimeoutMs: 120_000, maxInFlight: 20, logLevel: 'info' });
    expect(config.slackApiUrl).toBeUndefined();
    const fromEnv = parseSettings(SLACK_BOT_SETTINGS, {}, { FLOTILLA_SLACK_BOT_TOKEN: 'xoxb-2', FLOTILLA_SLACK_PORT: '9000', FLOTILLA_SUPERVISOR_URL: 'http://sup:8090', FLOTILLA_SLACK_SOCKET_MODE: 'true', FLOTILLA_SLACK_APP_TOKEN: 'xapp-1' }, 'test');
    expect(fromEnv).toMatchObject({ botToken: 'xoxb-2', port: 9000, agentUrl: 'http://sup:8090', socketMode: true, appToken: 'xapp-1' });
    expect(() => checkSlackBotConfig(fromEnv)).not.toThrow();
  });

  it('requires the bot token, the signing secret in HTTP mode and the app token in Socket Mode', () => {
    expect(() => parseSettings(SLACK_BOT_SETTINGS, {}, {}, 'test')).toThrow(/--bot-token \/ FLOTILLA_SLACK_BOT_TOKEN: is required/);
    const http = parseSettings(SLACK_BOT_SETTINGS, base, {}, 'test');
    expect(() => checkSlackBotConfig(http)).toThrow(FlotillaError);
    expect(() => checkSlackBotConfig(http)).toThrow(/FLOTILLA_SLACK_SIGNING_SECRET: is required in HTTP mode/);
    const socket = parseSettings(SLACK_BOT_SETTINGS, { ...base, 'socket-mode': true }, {}, 'test');
    expect(() => checkSlackBotConfig(socket)).toThrow(/FLOTILLA_SLACK_APP_TOKEN: is required in Socket Mode/);
  });
});
