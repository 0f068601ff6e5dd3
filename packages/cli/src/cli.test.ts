import { execFile, spawn, type ChildProcessByStdio } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { resolveCommand, settingsFor } from './cli.js';
import { COMMANDS } from './commands/index.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** The first JSON log line of `child` whose message is `msg` (lines may arrive split across chunks). */
function logLine(child: ChildProcessByStdio<null, Readable, Readable>, msg: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry.msg === msg) resolve(entry);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited early with ${String(code)}`)));
  });
}

/** Sends SIGTERM and resolves with the exit code, so no process outlives its test. */
function stop(child: ChildProcessByStdio<null, Readable, Readable>): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

describe('flotilla command line', () => {
  it('prints the command list without arguments and help for every command', () => {
    const root = resolveCommand(COMMANDS, []);
    expect(root.kind).toBe('help');
    for (const command of COMMANDS) {
      const resolution = resolveCommand(COMMANDS, [...command.path, '--help']);
      expect(resolution.kind).toBe('help');
      if (resolution.kind !== 'help') continue;
      expect(resolution.text).toContain(`flotilla ${command.path.join(' ')}`);
      for (const setting of Object.values(command.settings)) {
        expect(resolution.text).toContain(`--${setting.flag}`);
        expect(resolution.text).toContain(setting.env);
      }
    }
  });

  it('lists the fake LLM servers, says they are scripted stand-ins, and shows the agents\' LLM flags', () => {
    const root = resolveCommand(COMMANDS, ['--help']);
    expect(root.kind).toBe('help');
    expect(root.kind === 'help' ? root.text : '').toMatch(/\n {2}sim openai {2,}Start a fake OpenAI API/);
    expect(root.kind === 'help' ? root.text : '').toMatch(/\n {2}sim anthropic {2,}Start a fake Anthropic API/);
    for (const [provider, port] of [['openai', '8096'], ['anthropic', '8097']] as const) {
      const help = resolveCommand(COMMANDS, ['sim', provider, '--help']);
      const text = help.kind === 'help' ? help.text : '';
      expect(text).toContain(`Usage: flotilla sim ${provider} [options]`);
      expect(text).toContain('scripted stand-in for offline use');
      expect(text).toContain('not a model');
      expect(text).toContain(`--llm-provider ${provider} --llm-base-url`);
      expect(text).toMatch(new RegExp(`--port <value> +Port of the fake ${provider === 'openai' ? 'OpenAI' : 'Anthropic'} API \\(default: ${port}\\)`));
      expect(text).toMatch(/--api-key <value> .*\(required\) {2}\[env FLOTILLA_LLM_API_KEY\]/);
      expect(text).toContain('--context-window');
    }
    for (const agent of ['argocd', 'netbox']) {
      const help = resolveCommand(COMMANDS, ['agent', agent, '--help']);
      const text = help.kind === 'help' ? help.text : '';
      for (const [flag, env] of [
        ['llm-provider', 'FLOTILLA_LLM_PROVIDER'],
        ['llm-model', 'FLOTILLA_LLM_MODEL'],
        ['llm-base-url', 'FLOTILLA_LLM_BASE_URL'],
        ['llm-api-key', 'FLOTILLA_LLM_API_KEY'],
        ['max-context-tokens', 'MAX_CONTEXT_TOKENS'],
        ['min-messages-to-keep', 'MIN_MESSAGES_TO_KEEP'],
        ['tool-discovery', 'FLOTILLA_TOOL_DISCOVERY'],
      ]) {
        expect(text, `agent ${agent}`).toMatch(new RegExp(`--${flag} <value> .*\\[env ${env}\\]`));
      }
    }
  });

  it('gives the fake LLM servers their own default ports, the key from FLOTILLA_LLM_API_KEY, and names a bad setting', () => {
    const command = (provider: string): (typeof COMMANDS)[number] => {
      const found = COMMANDS.find((c) => c.path.join(' ') === `sim ${provider}`);
      if (found === undefined) throw new Error(`missing sim ${provider}`);
      return found;
    };
    expect(settingsFor(command('openai'), {}, { FLOTILLA_LLM_API_KEY: 'k' })).toMatchObject({ host: '127.0.0.1', port: 8096, apiKey: 'k', contextWindow: undefined });
    expect(settingsFor(command('anthropic'), { 'api-key': 'flag', 'context-window': '32000' }, { FLOTILLA_LLM_API_KEY: 'env' })).toMatchObject({ port: 8097, apiKey: 'flag', contextWindow: 32000 });
    expect(() => settingsFor(command('openai'), { 'context-window': '0' }, {})).toThrow(/--api-key \/ FLOTILLA_LLM_API_KEY: is required[\s\S]*--context-window \/ FLOTILLA_SIM_CONTEXT_WINDOW: must be a whole number from 1/);
    expect(() => settingsFor(command('anthropic'), { 'api-key': 'two words' }, {})).toThrow(/--api-key \/ FLOTILLA_LLM_API_KEY: the API key must be printable ASCII/);
  });

  it('names an unknown command and suggests the near ones', () => {
    const resolution = resolveCommand(COMMANDS, ['sim', 'nope']);
    expect(resolution).toMatchObject({ kind: 'error' });
    expect(resolution.kind === 'error' ? resolution.message : '').toMatch(/flotilla sim argocd/);
    expect(resolveCommand(COMMANDS, ['mcp', 'argocd', '--bogus', '1']).kind).toBe('error');
  });

  it('reads flags over environment variables and reports every bad setting by flag and variable', () => {
    const command = COMMANDS.find((c) => c.path.join(' ') === 'mcp argocd');
    if (command === undefined) throw new Error('missing command');
    const ok = settingsFor(command, { port: '9100', 'argocd-url': 'http://127.0.0.1:1' }, { FLOTILLA_ARGOCD_MCP_PORT: '1', FLOTILLA_ARGOCD_TOKEN: 't' });
    expect(ok).toMatchObject({ port: 9100, argocdToken: 't', budgetTokens: 2000, host: '127.0.0.1' });
    try {
      settingsFor(command, { port: '99999', 'budget-tokens': '10' }, { FLOTILLA_ARGOCD_URL: 'ftp://x' });
      throw new Error('expected invalid settings');
    } catch (error) {
      if (!isFlotillaError(error)) throw error;
      expect(error.code).toBe('config_invalid');
      expect(error.message).toContain('--port / FLOTILLA_ARGOCD_MCP_PORT: must be a whole number from 0 to 65535 (got "99999")');
      expect(error.message).toContain('--budget-tokens / FLOTILLA_TOOL_BUDGET_TOKENS: must be a whole number from 256 to 100000');
      expect(error.message).toMatch(/--argocd-url \/ FLOTILLA_ARGOCD_URL: must start with http/);
      expect(error.message).toContain('--argocd-token / FLOTILLA_ARGOCD_TOKEN: is required (not set)');
    }
  });

  it('the built agent stops cleanly on SIGTERM', async () => {
    expect(existsSync(MAIN), 'packages/cli/dist/main.js is missing: run pnpm build first').toBe(true);
    const child = spawn(process.execPath, [MAIN, 'agent', 'argocd', '--local', '--port', '0', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const listening = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        if (chunk.toString('utf8').includes('A2A agent listening')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${String(code)}`)));
    });
    await listening;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('the built NetBox agent with --local answers `flotilla ask`, and a bad NetBox setting is named', async () => {
    expect(existsSync(MAIN), 'packages/cli/dist/main.js is missing: run pnpm build first').toBe(true);
    const child = spawn(process.execPath, [MAIN, 'agent', 'netbox', '--local', '--port', '0', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = String((await logLine(child, 'A2A agent listening')).url);
      const asked = await run(process.execPath, [MAIN, 'ask', '--agent', url, 'interfaces of every switch in ams1']);
      expect(asked.stdout).toMatch(/interfaces on 110 devices at ams1, role switch, all of them read/);
      expect(asked.stdout).toContain('You can say: "next batch"');
    } finally {
      await stop(child);
    }
    const bad = await run(process.execPath, [MAIN, 'mcp', 'netbox', '--netbox-rate-limit', '0'], { env: { PATH: process.env.PATH ?? '' } }).catch(
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain('--netbox-rate-limit / FLOTILLA_NETBOX_RATE_LIMIT: must be at least 0.1');
    expect((bad as { stderr: string }).stderr).toContain('--netbox-url / FLOTILLA_NETBOX_URL: is required');
  });

  it('the built `flotilla up` starts the supervisor with both agents; ask goes through it to either', async () => {
    expect(existsSync(MAIN), 'packages/cli/dist/main.js is missing: run pnpm build first').toBe(true);
    // Slow by nature, not by fault: three processes that each load every package (~1.3 s of imports on an idle
    // core, far more on a loaded one), two simulators generating their default estates, three agents.
    const child = spawn(process.execPath, [MAIN, 'up', '--port', '0', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let exitCode: number | null;
    try {
      const url = String((await logLine(child, 'Flotilla is up')).url);
      const [netbox, argocd] = await Promise.all([run(process.execPath, [MAIN, 'ask', '--agent', url, 'list sites']), run(process.execPath, [MAIN, 'ask', '--agent', url, 'list clusters'])]);
      expect(netbox.stdout).toContain('12 sites:');
      expect(argocd.stdout).toContain('13 clusters');
    } finally {
      exitCode = await stop(child);
    }
    expect(exitCode).toBe(0);
  });

  it('the built `sim openai` and `sim anthropic` answer real requests with the key, refuse others, and stop on SIGINT/SIGTERM', async () => {
    expect(existsSync(MAIN), 'packages/cli/dist/main.js is missing: run pnpm build first').toBe(true);
    const openai = spawn(process.execPath, [MAIN, 'sim', 'openai', '--port', '0', '--api-key', 'sim-key'], { stdio: ['ignore', 'pipe', 'pipe'] });
    // The key from the environment, as agents read theirs.
    const anthropic = spawn(process.execPath, [MAIN, 'sim', 'anthropic', '--port', '0'], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', FLOTILLA_LLM_API_KEY: 'sim-key' } });
    try {
      const [openaiLog, anthropicLog] = await Promise.all([logLine(openai, 'fake OpenAI API listening'), logLine(anthropic, 'fake Anthropic API listening')]);
      const openaiBase = String(openaiLog.llmBaseUrl);
      expect(openaiBase).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(openaiLog.agentFlags).toBe(`--llm-provider openai --llm-base-url ${openaiBase}`);
      const chat = (key: string): Promise<Response> =>
        fetch(`${openaiBase}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'which apps are out of sync?' }] }),
        });
      const answered = await chat('sim-key');
      expect(answered.status).toBe(200);
      const completion = (await answered.json()) as { object: string; choices: { message: { role: string; content: string }; finish_reason: string }[] };
      expect(completion.object).toBe('chat.completion');
      expect(completion.choices[0]?.message).toMatchObject({ role: 'assistant', content: expect.any(String) as string });
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      const refused = await chat('wrong-key');
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: 'invalid_api_key' } });

      const anthropicBase = String(anthropicLog.llmBaseUrl);
      expect(anthropicBase).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const message = await fetch(`${anthropicBase}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': 'sim-key', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 256, messages: [{ role: 'user', content: 'list sites' }] }),
      });
      expect(message.status).toBe(200);
      expect(await message.json()).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    } finally {
      const exits = [openai, anthropic].map((child) => new Promise<number | null>((resolve) => (child.exitCode === null ? child.once('exit', (code) => resolve(code)) : resolve(child.exitCode))));
      openai.kill('SIGINT');
      anthropic.kill('SIGTERM');
      expect(await Promise.all(exits)).toEqual([0, 0]);
    }
  });

  it('the built command exits 2 with the message on bad settings, and 0 on --help', async () => {
    expect(existsSync(MAIN), 'packages/cli/dist/main.js is missing: run pnpm build first').toBe(true);
    const help = await run(process.execPath, [MAIN, 'sim', 'argocd', '--help']);
    expect(help.stdout).toContain('--applications');
    const bad = await run(process.execPath, [MAIN, 'sim', 'argocd', '--port', 'eighty'], { env: { PATH: process.env.PATH ?? '' } }).catch(
      (error: unknown) => error as { code: number; stderr: string },
    );
    expect(bad).toMatchObject({ code: 2 });
    expect((bad as { stderr: string }).stderr).toContain('--port / FLOTILLA_ARGOCD_SIM_PORT');
    expect((bad as { stderr: string }).stderr).toContain('--token / FLOTILLA_ARGOCD_TOKEN: is required');
    const noKey = await run(process.execPath, [MAIN, 'sim', 'openai'], { env: { PATH: process.env.PATH ?? '' } }).catch((error: unknown) => error as { code: number; stderr: string });
    expect(noKey).toMatchObject({ code: 2 });
    expect((noKey as { stderr: string }).stderr).toContain('--api-key / FLOTILLA_LLM_API_KEY: is required');
  });
});
