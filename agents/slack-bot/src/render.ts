import { z } from 'zod';

/**
 * Slack's message limits, and ours within them. Slack: a section block's text at most 3,000 characters, at most
 * 50 blocks per message, a message's `text` within 4,000 characters (truncated past 40,000), a button's text at
 * most 75 characters and its value at most 2,000. Ours: at most 45 answer blocks and 3,800 answer characters per
 * message (its `text` fallback carries the same content, so it stays under 4,000), at most 5 messages per answer
 * (past that the answer goes whole as a file), at most 5 buttons.
 */
export interface SlackLimits {
  readonly sectionTextMax: number;
  readonly blocksMax: number;
  readonly contentBlocksMax: number;
  readonly messageTextMax: number;
  readonly messageContentMax: number;
  readonly messagesMax: number;
  readonly buttonsMax: number;
  readonly buttonTextMax: number;
  readonly buttonValueMax: number;
}

export const SLACK_LIMITS: SlackLimits = {
  sectionTextMax: 3000,
  blocksMax: 50,
  contentBlocksMax: 45,
  messageTextMax: 4000,
  messageContentMax: 3800,
  messagesMax: 5,
  buttonsMax: 5,
  buttonTextMax: 75,
  buttonValueMax: 2000,
};

export interface SectionBlock {
  readonly type: 'section';
  readonly text: { readonly type: 'mrkdwn'; readonly text: string };
}
export interface ContextBlock {
  readonly type: 'context';
  readonly elements: readonly { readonly type: 'mrkdwn'; readonly text: string }[];
}
export interface ButtonElement {
  readonly type: 'button';
  readonly text: { readonly type: 'plain_text'; readonly text: string; readonly emoji: boolean };
  readonly value: string;
  readonly action_id: string;
}
export interface ActionsBlock {
  readonly type: 'actions';
  readonly block_id: string;
  readonly elements: readonly ButtonElement[];
}
export type SlackBlock = SectionBlock | ContextBlock | ActionsBlock;

/** One Slack message: blocks, and the `text` notifications and screen readers use. */
export interface SlackMessage {
  readonly text: string;
  readonly blocks: readonly SlackBlock[];
}

/** A follow-up the agent offers: a button's label and the prompt it sends. */
export interface FollowUp {
  readonly label: string;
  readonly prompt: string;
}

export type RenderedAnswer =
  | { readonly kind: 'messages'; readonly messages: readonly SlackMessage[] }
  | {
      readonly kind: 'file';
      /** The whole answer, as the agent wrote it (Markdown). */
      readonly file: { readonly filename: string; readonly title: string; readonly content: string };
      /** The message that says where the answer is, with the buttons. */
      readonly summary: SlackMessage;
    };

/** The action_id prefix of the follow-up buttons: `flotilla_option_0`, `flotilla_option_1`... */
export const OPTION_ACTION_PREFIX = 'flotilla_option_';
const FENCE_OVERHEAD = '```\n\n```'.length;

/** Escapes the three characters Slack's mrkdwn gives meaning to. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The first `max` characters of `text` at most, never ending inside a surrogate pair. */
export function sliceChars(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = Math.max(0, max);
  if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) cut -= 1;
  return text.slice(0, cut);
}

/** Cuts `text` to at most `max` characters, ending with "…" when cut, never inside a surrogate pair. */
export function truncateChars(text: string, max: number): string {
  return text.length <= max ? text : `${sliceChars(text, max - 1)}…`;
}

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;

/** Lines of `text`, each with its "\n" (the last may have none): concatenated, they are `text`. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Where to cut a line longer than `max`: at a space in its second half if any, never inside a surrogate pair or an entity. */
function cutPoint(line: string, max: number): number {
  let cut = max;
  const space = line.lastIndexOf(' ', max - 1);
  if (space >= Math.floor(max / 2)) cut = space + 1;
  if (isHighSurrogate(line.charCodeAt(cut - 1))) cut -= 1;
  // Never split "&amp;", "&lt;" or "&gt;": step back to the "&" when one is open at the cut.
  const amp = line.lastIndexOf('&', cut - 1);
  if (amp > 0 && cut - amp < 5 && !line.slice(amp, cut).includes(';') && /^&(amp|lt|gt);/.test(line.slice(amp, amp + 5))) cut = amp;
  return cut;
}

/**
 * Splits `text` into chunks of at most `max` characters, at line ends whenever a line fits (a longer line is
 * cut, at a space when it can). The chunks, concatenated, are exactly `text`; none is empty.
 */
export function splitText(text: string, max: number): string[] {
  if (!Number.isInteger(max) || max < 8) throw new RangeError(`splitText needs a whole max of at least 8, got ${max}`);
  const chunks: string[] = [];
  let current = '';
  for (const line of linesOf(text)) {
    if (current.length + line.length <= max) {
      current += line;
      continue;
    }
    if (current.length > 0) chunks.push(current);
    let rest = line;
    while (rest.length > max) {
      const cut = cutPoint(rest, max);
      chunks.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    current = rest;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

interface Segment {
  readonly kind: 'text' | 'code';
  readonly text: string;
}

const isTableLine = (line: string): boolean => line.trimStart().startsWith('|');
const isFence = (line: string): boolean => line.trimStart().startsWith('```');

/** Markdown prose as Slack mrkdwn (escaped; headings and bold as Slack bold). */
function proseToMrkdwn(line: string): string {
  const escaped = escapeMrkdwn(line);
  const heading = /^#{1,6}\s+(.*\S)\s*$/.exec(escaped);
  if (heading?.[1] !== undefined) return `*${heading[1].replace(/\*\*/g, '')}*`;
  return escaped.replace(/\*\*(\S(?:.*?\S)?)\*\*/g, '*$1*').replace(/__(\S(?:.*?\S)?)__/g, '_$1_');
}

/** Markdown as Slack segments: tables and fenced code become code (monospace, so columns line up), the rest mrkdwn. */
function segmentsOf(markdown: string): Segment[] {
  const segments: Segment[] = [];
  const lines = markdown.split('\n');
  let prose: string[] = [];
  const flushProse = (): void => {
    if (prose.length > 0) segments.push({ kind: 'text', text: prose.join('\n') });
    prose = [];
  };
  for (let i = 0; i < lines.length; ) {
    const line = lines[i] ?? '';
    if (isFence(line)) {
      flushProse();
      const code: string[] = [];
      i += 1;
      while (i < lines.length && !isFence(lines[i] ?? '')) code.push(lines[i++] ?? '');
      i += 1; // the closing fence (or the end)
      segments.push({ kind: 'code', text: escapeMrkdwn(code.join('\n')) });
    } else if (isTableLine(line)) {
      flushProse();
      const table: string[] = [];
      while (i < lines.length && isTableLine(lines[i] ?? '')) table.push(lines[i++] ?? '');
      segments.push({ kind: 'code', text: escapeMrkdwn(table.join('\n')) });
    } else {
      prose.push(proseToMrkdwn(line));
      i += 1;
    }
  }
  flushProse();
  return segments;
}

const section = (text: string): SectionBlock => ({ type: 'section', text: { type: 'mrkdwn', text } });

/** The answer as section blocks, each at most `sectionMax` characters (code fences included). */
export function answerSections(markdown: string, sectionMax: number): SectionBlock[] {
  const blocks: SectionBlock[] = [];
  for (const segment of segmentsOf(markdown)) {
    if (segment.kind === 'text') {
      for (const chunk of splitText(segment.text, sectionMax)) {
        const text = chunk.replace(/\n$/, '');
        if (text.trim().length > 0) blocks.push(section(text));
      }
    } else {
      for (const chunk of splitText(segment.text, sectionMax - FENCE_OVERHEAD)) {
        const text = chunk.replace(/\n$/, '');
        if (text.trim().length > 0) blocks.push(section(`\`\`\`\n${text}\n\`\`\``));
      }
    }
  }
  return blocks;
}

/** The follow-up buttons (at most `buttonsMax`), or none. A prompt too long for a button's value is left out. */
export function optionButtons(options: readonly FollowUp[], limits: SlackLimits = SLACK_LIMITS): ActionsBlock | undefined {
  const seen = new Set<string>();
  const elements: ButtonElement[] = [];
  for (const option of options) {
    const prompt = option.prompt.trim();
    if (prompt.length === 0 || prompt.length > limits.buttonValueMax || seen.has(prompt)) continue;
    seen.add(prompt);
    const label = option.label.trim().length > 0 ? option.label.trim() : prompt;
    elements.push({
      type: 'button',
      text: { type: 'plain_text', text: truncateChars(label, limits.buttonTextMax), emoji: true },
      value: prompt,
      action_id: `${OPTION_ACTION_PREFIX}${elements.length}`,
    });
    if (elements.length >= limits.buttonsMax) break;
  }
  return elements.length === 0 ? undefined : { type: 'actions', block_id: 'flotilla_options', elements };
}

const FollowUpDataSchema = z.object({
  limitation: z.object({
    options: z.array(z.object({ label: z.string().max(10_000).optional(), prompt: z.string().max(10_000) })).max(100),
  }),
});
const MetadataOptionsSchema = z.object({ options: z.array(z.string().max(10_000)).max(100) });

/** The follow-ups of an answer: the data part's `limitation.options` (label and prompt), else `metadata.options`. */
export function followUpsFrom(metadata: unknown, data: unknown): FollowUp[] {
  const fromData = FollowUpDataSchema.safeParse(data);
  if (fromData.success && fromData.data.limitation.options.length > 0) {
    return fromData.data.limitation.options.map((o) => ({ label: o.label ?? o.prompt, prompt: o.prompt }));
  }
  const fromMetadata = MetadataOptionsSchema.safeParse(metadata);
  return fromMetadata.success ? fromMetadata.data.options.map((o) => ({ label: o, prompt: o })) : [];
}

const formatCount = (n: number): string => n.toLocaleString('en-US');

/** A message of one mrkdwn text (a progress note, an error): cut to one section. */
export function noteMessage(text: string, limits: SlackLimits = SLACK_LIMITS): SlackMessage {
  const body = truncateChars(text, Math.min(limits.sectionTextMax, limits.messageTextMax));
  return { text: body, blocks: [section(body)] };
}

/**
 * An answer as Slack messages within Slack's limits: section blocks split on line boundaries (Markdown tables and
 * code as code blocks), packed into messages, the buttons on the last. An answer that would need more than
 * `messagesMax` messages goes whole as a file, with a short summary message.
 */
export function renderAnswer(answer: string, options: readonly FollowUp[] = [], limits: SlackLimits = SLACK_LIMITS): RenderedAnswer {
  const buttons = optionButtons(options, limits);
  const withButtons = (message: SlackMessage): SlackMessage => (buttons === undefined ? message : { text: message.text, blocks: [...message.blocks, buttons] });
  const sectionMax = Math.min(limits.sectionTextMax, limits.messageContentMax);
  const sections = answerSections(answer, sectionMax);
  if (sections.length === 0) return { kind: 'messages', messages: [withButtons(noteMessage('The agent sent an empty answer. Try asking again, or rephrase the question.', limits))] };

  const pages: SectionBlock[][] = [];
  let page: SectionBlock[] = [];
  let chars = 0;
  for (const block of sections) {
    const length = block.text.text.length;
    if (page.length > 0 && (page.length >= limits.contentBlocksMax || chars + length > limits.messageContentMax)) {
      pages.push(page);
      page = [];
      chars = 0;
    }
    page.push(block);
    chars += length;
  }
  pages.push(page);

  if (pages.length > limits.messagesMax) {
    const lines = answer.split('\n').length;
    const first = answer.split('\n').find((l) => l.trim().length > 0) ?? '';
    const summary =
      `The answer is too long for Slack messages (${formatCount(answer.length)} characters, ${formatCount(lines)} lines), ` +
      `so it is attached in full as *answer.md* in this thread.\n>${escapeMrkdwn(truncateChars(first.trim(), 300))}`;
    return {
      kind: 'file',
      file: { filename: 'answer.md', title: 'Answer', content: answer },
      summary: withButtons(noteMessage(summary, limits)),
    };
  }

  const messages = pages.map((blocks, i): SlackMessage => {
    const part: ContextBlock | undefined = pages.length > 1 ? { type: 'context', elements: [{ type: 'mrkdwn', text: `part ${i + 1} of ${pages.length}` }] } : undefined;
    const text = truncateChars(blocks.map((b) => b.text.text).join('\n'), limits.messageTextMax);
    const message: SlackMessage = { text, blocks: part === undefined ? blocks : [...blocks, part] };
    return i === pages.length - 1 ? withButtons(message) : message;
  });
  return { kind: 'messages', messages };
}

/**
 * The question in a Slack message's text: the bot's mention removed, Slack's escaping and link markup undone
 * (`<https://x|x>` is x, `&lt;` is <), whitespace collapsed.
 */
export function questionFromSlackText(text: string, botUserId?: string): string {
  const mention = botUserId === undefined ? /^\s*<@[A-Z0-9]+(?:\|[^>]*)?>/ : new RegExp(`<@${botUserId}(?:\\|[^>]*)?>`, 'g');
  return text
    .replace(mention, ' ')
    .replace(/<#[A-Z0-9]+\|([^>]*)>/g, '#$1')
    .replace(/<([^@#!>|][^>|]*)\|([^>]*)>/g, '$2')
    .replace(/<([^@#!>|][^>|]*)>/g, '$1')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The A2A conversation of a Slack thread: follow-ups in the thread continue it. */
export function threadContextId(team: string, channel: string, threadTs: string): string {
  return `slack:${team}:${channel}:${threadTs}`;
}
