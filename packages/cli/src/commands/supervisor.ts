import { SUPERVISOR_SETTINGS, startSupervisor } from '@flotilla/agent-supervisor';
import { defineCommand } from '../cli.js';
import { listing } from './catalogue.js';

export const supervisorCommand = defineCommand({
  ...listing('supervisor'),
  description:
    'The supervisor reads each domain agent\'s card (--agents name=url,… and, with --kubernetes, Services labelled flotilla.io/agent,\n' +
    'watched), routes every question by the agents\' skills, fans out when a question spans domains, and merges the answers, each\n' +
    'reply within --reply-max-tokens and each call within --call-timeout-ms. Follow-ups ("next page") reach the agent that answered; with several replicas, give them one --redis-url so any replica knows who answered.',
  settings: SUPERVISOR_SETTINGS,
  examples: [
    'flotilla supervisor --agents argocd=http://127.0.0.1:8092,netbox=http://127.0.0.1:8094',
    'flotilla supervisor --kubernetes --namespace flotilla --host 0.0.0.0',
  ],
  run: ({ settings, logger }) => startSupervisor(settings, logger),
});
