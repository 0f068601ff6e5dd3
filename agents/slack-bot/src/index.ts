export { SLACK_BOT_SETTINGS, checkSlackBotConfig, type SlackBotConfig } from './settings.js';
export { startSlackBot, capQuestion, PROGRESS_INTERVAL_MS, type RunningSlackBot } from './bot.js';
export {
  renderAnswer,
  answerSections,
  splitText,
  optionButtons,
  followUpsFrom,
  noteMessage,
  escapeMrkdwn,
  sliceChars,
  truncateChars,
  questionFromSlackText,
  threadContextId,
  SLACK_LIMITS,
  OPTION_ACTION_PREFIX,
  type SlackLimits,
  type SlackMessage,
  type SlackBlock,
  type SectionBlock,
  type ContextBlock,
  type ActionsBlock,
  type ButtonElement,
  type FollowUp,
  type RenderedAnswer,
} from './render.js';
export { askAgent, failureText, AgentFailure, TimeoutReason, ShutdownReason, type AgentReply, type AgentFailureKind, type AskOptions } from './agent-client.js';
