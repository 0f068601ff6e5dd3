import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { isFlotillaError } from '@flotilla/core';
import { resolveCommand, settingsFor } from './cli.js';
import { COMMANDS } from './commands/index.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

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
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          const line = chunk.toString('utf8').split('\n').find((l) => l.includes('A2A agent listening'));
          if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${String(code)}`)));
      });
      const asked = await run(process.execPath, [MAIN, 'ask', '--agent', url, 'interfaces of every switch in ams1']);
      expect(asked.stdout).toMatch(/interfaces on 110 devices at ams1, role switch, all of them read/);
      expect(asked.stdout).toContain('You can say: "next batch"');
    } finally {
      child.kill('SIGTERM');
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
    const child = spawn(process.execPath, [MAIN, 'up', '--port', '0', '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          const line = chunk.toString('utf8').split('\n').find((l) => l.includes('Flotilla is up'));
          if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url);
        });
        child.once('exit', (code) => reject(new Error(`exited early with ${String(code)}`)));
      });
      const netbox = await run(process.execPath, [MAIN, 'ask', '--agent', url, 'list sites']);
      expect(netbox.stdout).toContain('12 sites:');
      const argocd = await run(process.execPath, [MAIN, 'ask', '--agent', url, 'list clusters']);
      expect(argocd.stdout).toContain('13 clusters');
    } finally {
      child.kill('SIGTERM');
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
  });
});
