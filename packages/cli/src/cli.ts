import { parseArgs } from 'node:util';
import { parseSettings, settingsHelp, type FlagValues, type Logger, type Settings, type SettingsSpec } from '@flotilla/core';

/** Something a command started and that must be stopped on SIGTERM/SIGINT. */
export interface Running {
  close(): Promise<void>;
}

/** What a command writes for people (demo transcripts, tables); logs go through the logger. */
export interface Output {
  write(text: string): void;
}

export interface CommandContext<T extends SettingsSpec> {
  readonly settings: Settings<T>;
  /** Root logger at the command's `--log-level` (info when it has none). */
  readonly logger: Logger;
  readonly out: Output;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A command as the command list shows it. */
export interface CommandListing {
  /** Words after `flotilla`, e.g. ['sim', 'argocd']. */
  readonly path: readonly string[];
  readonly summary: string;
}

export interface Command<T extends SettingsSpec = SettingsSpec> extends CommandListing {
  readonly description: string;
  readonly settings: T;
  readonly examples: readonly string[];
  /** The flag that words after the command fill (e.g. `flotilla ask "which apps..."` fills --question). */
  readonly positional?: string;
  /** Starts the piece. A `Running` result keeps the process up until a signal; `undefined` means done. */
  run(ctx: CommandContext<T>): Promise<Running | undefined>;
}

/** Keeps each command's settings type while allowing a heterogeneous list. */
export function defineCommand<T extends SettingsSpec>(command: Command<T>): Command {
  return command;
}

export function commandHelp(command: Command): string {
  return [
    `Usage: flotilla ${command.path.join(' ')}${command.positional === undefined ? '' : ` [${command.positional}]`} [options]`,
    '',
    command.description,
    '',
    'Options (flags win over environment variables):',
    settingsHelp(command.settings),
    '  --help                  Show this help',
    '',
    'Examples:',
    ...command.examples.map((e) => `  ${e}`),
    '',
  ].join('\n');
}

export function rootHelp(commands: readonly CommandListing[]): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length)) + 4;
  return [
    'Usage: flotilla <command> [options]',
    '',
    'Flotilla: operations agents whose answers never blow up a context window or a pod\'s memory.',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.path.join(' ').padEnd(width)}${c.summary}`),
    '',
    'Run `flotilla <command> --help` for the options of one command; `flotilla` alone runs `flotilla up`.',
    '',
  ].join('\n');
}

export type Resolution =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'run'; readonly command: Command; readonly flags: FlagValues }
  | { readonly kind: 'error'; readonly message: string };

/** The words of `argv` before its first flag: the command's path and, after it, a positional's words. */
function leadingWords(argv: readonly string[]): string[] {
  const firstFlag = argv.findIndex((a) => a.startsWith('-'));
  return argv.slice(0, firstFlag === -1 ? argv.length : firstFlag);
}

/** The command the leading words name (the longest path that matches), the root help, or an error naming near ones. */
export function findCommand<C extends CommandListing>(commands: readonly C[], argv: readonly string[]): { readonly kind: 'found'; readonly command: C } | Exclude<Resolution, { kind: 'run' }> {
  const words = leadingWords(argv);
  const command = [...commands].sort((a, b) => b.path.length - a.path.length).find((c) => c.path.every((word, i) => words[i] === word));
  if (command !== undefined) return { kind: 'found', command };
  if (words.length === 0) return { kind: 'help', text: rootHelp(commands) };
  const near = commands.filter((c) => c.path[0] === words[0]).map((c) => `flotilla ${c.path.join(' ')}`);
  return {
    kind: 'error',
    message: `unknown command "${words.join(' ')}".${near.length > 0 ? ` Did you mean: ${near.join(', ')}?` : ''} Run flotilla --help for the list.`,
  };
}

/** Parses the flags (and positional words) of `argv` that follow `command`'s path; never throws for bad input. */
export function parseCommandArgs(command: Command, argv: readonly string[]): Resolution {
  const rest = argv.slice(command.path.length);
  const options: Record<string, { type: 'string' | 'boolean' }> = { help: { type: 'boolean' } };
  // A switch (`--local`) takes no value; every other setting does.
  for (const setting of Object.values(command.settings)) options[setting.flag] = { type: setting.isSwitch === true ? 'boolean' : 'string' };
  try {
    const parsed = parseArgs({ args: [...rest], options, strict: true, allowPositionals: command.positional !== undefined });
    const { help, ...flags } = parsed.values as Record<string, string | boolean | undefined>;
    if (help === true) return { kind: 'help', text: commandHelp(command) };
    if (command.positional !== undefined && parsed.positionals.length > 0) flags[command.positional] = parsed.positionals.join(' ');
    const defined = Object.fromEntries(Object.entries(flags).filter((e): e is [string, string | boolean] => e[1] !== undefined));
    return { kind: 'run', command, flags: defined };
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] ?? '' : 'bad arguments';
    return { kind: 'error', message: `${message}. Run flotilla ${command.path.join(' ')} --help for its options.` };
  }
}

/** Finds the command named by the leading words and parses its flags; never throws for bad input. */
export function resolveCommand(commands: readonly Command[], argv: readonly string[]): Resolution {
  const found = findCommand(commands, argv);
  return found.kind === 'found' ? parseCommandArgs(found.command, argv) : found;
}

/** Parses a command's settings from flags and environment; the error names every bad setting. */
export function settingsFor<T extends SettingsSpec>(command: Command<T>, flags: FlagValues, env: Readonly<Record<string, string | undefined>>): Settings<T> {
  return parseSettings(command.settings, flags, env, `flotilla ${command.path.join(' ')}`);
}
