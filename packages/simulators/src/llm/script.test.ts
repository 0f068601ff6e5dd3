import { describe, expect, it } from 'vitest';
import { defaultScript, NO_TOOLS_TEXT, type ScriptInput, type ScriptMessage, type ScriptTool } from './script.js';

const tool = (name: string, description = ''): ScriptTool => ({ name, description, parameters: { type: 'object' } });
const FIND = tool('find_tools', 'Search the tool catalogue');
const LOAD = tool('load_tools', 'Load tools by name');
const SITES = tool('list_sites', 'List NetBox sites');
const INTERFACES = tool('list_interfaces', 'List the interfaces of devices, e.g. every switch of a site');
const input = (messages: ScriptMessage[], tools: ScriptTool[]): ScriptInput => ({ model: 'm', system: '', messages, tools, maxTokens: undefined });
const user = (text: string): ScriptMessage => ({ role: 'user', text });
const called = (id: string, name: string): ScriptMessage => ({ role: 'assistant', text: '', toolCalls: [{ id, name, args: {} }] });
const result = (id: string, text: string): ScriptMessage => ({ role: 'tool', toolCallId: id, text });

describe('defaultScript', () => {
  const question = 'interfaces of every switch in ams1';

  it('searches the catalogue first when find_tools is offered (the first 200 characters of the question)', async () => {
    expect(await defaultScript(input([user(question)], [FIND, LOAD]))).toEqual({ text: '', toolCalls: [{ name: 'find_tools', args: { query: question } }] });
    const long = 'x'.repeat(300);
    expect((await defaultScript(input([user(long)], [FIND]))).toolCalls?.[0]?.args).toEqual({ query: 'x'.repeat(200) });
  });

  it('otherwise calls the offered tool sharing the most words with the question, or says it has no tools', async () => {
    expect(await defaultScript(input([user(question)], [SITES, INTERFACES]))).toEqual({ text: '', toolCalls: [{ name: 'list_interfaces', args: {} }] });
    expect(await defaultScript(input([user('which sites are there?')], [SITES, INTERFACES]))).toMatchObject({ toolCalls: [{ name: 'list_sites' }] });
    expect(await defaultScript(input([user(question)], []))).toEqual({ text: NO_TOOLS_TEXT });
  });

  it('loads the first match of a find_tools result, or says nothing matched', async () => {
    const found = (text: string, tools: ScriptTool[]): ReturnType<typeof defaultScript> => defaultScript(input([user(question), called('c1', 'find_tools'), result('c1', text)], tools));
    const matches = JSON.stringify({ matches: [{ name: 'list_interfaces', description: 'd' }, { name: 'list_sites', description: 'd' }] });
    expect(await found(matches, [FIND, LOAD])).toEqual({ text: '', toolCalls: [{ name: 'load_tools', args: { names: ['list_interfaces'] } }] });
    expect(await found(JSON.stringify({ matches: [] }), [FIND, LOAD])).toEqual({ text: 'No tools matched the request.' });
    expect(await found('not json', [FIND, LOAD])).toEqual({ text: 'No tools matched the request.' });
    expect(await found(matches, [])).toEqual({ text: 'Matching tools: list_interfaces, list_sites.' });
  });

  it('after load_tools calls the loaded tool best matching the latest question', async () => {
    const messages = [user(question), called('c1', 'find_tools'), result('c1', '{}'), called('c2', 'load_tools'), result('c2', 'ok')];
    expect(await defaultScript(input(messages, [FIND, LOAD, SITES, INTERFACES]))).toEqual({ text: '', toolCalls: [{ name: 'list_interfaces', args: {} }] });
    expect(await defaultScript(input(messages, [FIND, LOAD]))).toEqual({ text: 'No tools were loaded.' });
    expect(await defaultScript(input(messages, []))).toEqual({ text: 'No tools were loaded.' });
  });

  it('answers a real tool result with its first 1,500 characters', async () => {
    const messages = [user(question), called('c3', 'list_interfaces'), result('c3', 'y'.repeat(2_000))];
    expect(await defaultScript(input(messages, [INTERFACES]))).toEqual({ text: `From list_interfaces:\n${'y'.repeat(1_500)}` });
    expect(await defaultScript(input([user('q'), result('unknown', 'r')], []))).toEqual({ text: 'From the tool:\nr' });
  });
});
