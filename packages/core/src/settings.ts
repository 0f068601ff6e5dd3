import type { z } from 'zod';
import { FlotillaError } from './errors.js';
import { declareSecretKeys } from './logger.js';
import { redactUrl } from './redact-url.js';

/**
 * One setting of a Flotilla process: read from a command-line flag or an environment variable (the flag wins),
 * validated by a zod schema that carries its default. Declared once per process, this table drives parsing,
 * error messages that name the flag and variable, and `--help`.
 */
export interface SettingSpec<S extends z.ZodType = z.ZodType> {
  /** Flag name without dashes: `port` is `--port`. */
  readonly flag: string;
  /** Environment variable, e.g. `FLOTILLA_PORT`. */
  readonly env: string;
  readonly schema: S;
  /** One line for `--help`. */
  readonly help: string;
  /**
   * Never echoed back in an error, and never logged: `parseSettings` declares its key, flag and variable to every
   * logger (`declareSecretKeys`), whatever they are named.
   */
  readonly secret?: boolean;
  /** A flag without a value (`--local`); its environment variable takes true/false. */
  readonly isSwitch?: boolean;
}

export type SettingsSpec = Readonly<Record<string, SettingSpec>>;
export type Settings<T extends SettingsSpec> = { -readonly [K in keyof T]: z.output<T[K]['schema']> };

/** Flags as the command line gave them: `--name value`, `--name=value`, or bare `--name` (true). */
export type FlagValues = Readonly<Record<string, string | boolean>>;

/**
 * Parse settings once at start; every problem is reported together, each naming its flag and variable. The secret
 * settings of `spec` are declared to the loggers first (`declareSecretKeys`), so no logger writes their values, even
 * when the settings are refused.
 */
export function parseSettings<T extends SettingsSpec>(
  spec: T,
  flags: FlagValues,
  env: Readonly<Record<string, string | undefined>>,
  what: string,
): Settings<T> {
  declareSecretKeys(Object.entries(spec).flatMap(([key, s]) => (s.secret === true ? [key, s.flag, s.env] : [])));
  const known = new Set(Object.values(spec).map((s) => s.flag));
  const unknown = Object.keys(flags).filter((flag) => !known.has(flag));
  const problems: string[] = unknown.map((flag) => `  --${flag}: unknown option`);
  const out: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(spec)) {
    const fromFlag = flags[setting.flag];
    const raw = fromFlag ?? (env[setting.env] === '' ? undefined : env[setting.env]);
    const parsed = setting.schema.safeParse(raw);
    if (parsed.success) {
      out[key] = parsed.data;
    } else {
      const message = parsed.error.issues[0]?.message ?? 'invalid value';
      // A URL's credentials are never echoed, whichever setting carries them.
      const shown = raw === undefined ? 'not set' : setting.secret === true ? 'given' : `got ${JSON.stringify(typeof raw === 'string' ? redactUrl(raw) : raw)}`;
      problems.push(`  --${setting.flag} / ${setting.env}: ${raw === undefined && /received undefined|required/i.test(message) ? 'is required' : message} (${shown})`);
    }
  }
  if (problems.length > 0) {
    throw new FlotillaError('config_invalid', `invalid ${what} settings:\n${problems.join('\n')}`, {
      remedy: 'Fix the settings named above (flags or environment variables) and start again; --help lists them.',
    });
  }
  return out as Settings<T>;
}

/** `--help` lines for a settings table: flag, variable, default, description. */
export function settingsHelp(spec: SettingsSpec): string {
  const rows = Object.values(spec).map((s) => {
    const fallback = s.schema.safeParse(undefined);
    const shown = fallback.success ? (fallback.data === undefined ? '' : ` (default: ${JSON.stringify(fallback.data)})`) : ' (required)';
    return { left: `  --${s.flag}${s.isSwitch === true ? '' : ' <value>'}`, right: `${s.help}${shown}  [env ${s.env}]` };
  });
  const width = Math.max(...rows.map((r) => r.left.length)) + 2;
  return rows.map((r) => `${r.left.padEnd(width)}${r.right}`).join('\n');
}
