#!/usr/bin/env node
import { createLogger, describeError, isFlotillaError, LOG_LEVELS, redactUrl, releaseStartupMemoryWhenQuiet, type IdleMemoryWatch, type LogLevel } from '@flotilla/core';
import { findCommand, parseCommandArgs, settingsFor, type Output, type Running } from './cli.js';
import { CATALOGUE } from './commands/catalogue.js';

const out: Output = { write: (text) => void process.stdout.write(text) };
/** Errors go to stderr as the logger writes lines: a URL's credentials never show. */
const fail = (message: string): void => {
  process.stderr.write(`flotilla: ${redactUrl(message)}\n`);
  process.exitCode = 2;
};

async function main(argv: readonly string[]): Promise<void> {
  const found = findCommand(CATALOGUE, argv);
  if (found.kind !== 'found') {
    if (found.kind === 'help') out.write(found.text);
    else fail(found.message);
    return;
  }
  // Only the command that runs is loaded, with the packages it needs (an MCP server loads no agent, no simulator).
  const resolution = parseCommandArgs(await found.command.load(), argv);
  switch (resolution.kind) {
    case 'help':
      out.write(resolution.text);
      return;
    case 'error':
      fail(resolution.message);
      return;
    case 'run':
      break;
  }
  const { command, flags } = resolution;
  let settings: Record<string, unknown>;
  try {
    settings = settingsFor(command, flags, process.env);
  } catch (error) {
    fail(isFlotillaError(error) ? `${error.message}\n${error.remedy ?? ''}` : describeError(error));
    return;
  }
  const level = (LOG_LEVELS as readonly string[]).includes(String(settings.logLevel)) ? (settings.logLevel as LogLevel) : 'info';
  const logger = createLogger({ name: `flotilla ${command.path.join(' ')}`, level });
  // Signals are handled from the start: one that arrives while a piece is still starting stops it once it is up.
  let running: Running | undefined;
  const idleMemory: { watch?: IdleMemoryWatch } = {};
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'stopping');
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    idleMemory.watch?.cancel();
    if (running === undefined) return;
    running
      .close()
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        logger.error({ err: error }, 'stop failed');
        process.exit(1);
      });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    running = await command.run({ settings, logger, out, env: process.env });
  } catch (error) {
    logger.error({ err: error }, 'failed to start');
    fail(`${command.path.join(' ')} failed: ${describeError(error)}`);
    process.exit();
  }
  if (running === undefined) {
    process.removeListener('SIGTERM', stop);
    process.removeListener('SIGINT', stop);
    return;
  }
  if (stopping) {
    stopping = false;
    stop('SIGTERM');
    return;
  }
  // A piece that keeps running gives back what its start-up used once it is first quiet (see IDLE_MEMORY_LIMITS).
  idleMemory.watch = releaseStartupMemoryWhenQuiet({ logger });
}

// `flotilla` alone starts the platform (supervisor and domain agents); `flotilla --help` lists the commands.
const argv = process.argv.slice(2);
await main(argv.length === 0 ? ['up'] : argv);
