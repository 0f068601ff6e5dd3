import { SLACK_BOT_SETTINGS, startSlackBot } from '@flotilla/agent-slack-bot';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

export const slackCommand = defineCommand({
  ...listing('slack'),
  description:
    'HTTP mode (Events API and interactivity at /slack/events, signatures verified) or Socket Mode (--socket-mode --app-token).\n' +
    'The Slack thread is the A2A conversation: follow-ups and buttons ("next batch") continue it. Answers respect Slack\'s\n' +
    'limits (3,000 characters a section, 50 blocks a message), continue in further messages, or arrive as a file.',
  settings: SLACK_BOT_SETTINGS,
  examples: [
    'flotilla slack --bot-token "$SLACK_BOT_TOKEN" --signing-secret "$SLACK_SIGNING_SECRET"',
    'flotilla slack --socket-mode --app-token "$SLACK_APP_TOKEN" --bot-token "$SLACK_BOT_TOKEN" --agent-url http://flotilla-supervisor:8090',
  ],
  run: ({ settings, logger }) => startSlackBot(settings, logger),
});
