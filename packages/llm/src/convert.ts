import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ContextRequest, JsonValue, Message, ToolDefinition } from '@flotilla/context';

/** Where a conversation resumes after its start was summarised or dropped (providers want a user turn first). */
export const RESUME_TEXT = '(continuing the conversation)';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The OpenAI function-tool shape, which LangChain binds for every provider. */
export function toBindable(tool: ToolDefinition): { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } } {
  const schema = isRecord(tool.inputSchema) ? tool.inputSchema : { type: 'object', properties: {} };
  return { type: 'function', function: { name: tool.name, description: tool.description ?? '', parameters: schema } };
}

/** A fitted request as LangChain messages: the system prompt first, then the conversation. */
export function toLangChain(request: ContextRequest): BaseMessage[] {
  const out: BaseMessage[] = [];
  if (request.system.length > 0) out.push(new SystemMessage(request.system));
  const first = request.messages.find((m) => m.role !== 'system');
  if (first !== undefined && first.role !== 'user') out.push(new HumanMessage(RESUME_TEXT));
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
        out.push(new SystemMessage(message.text));
        break;
      case 'user':
        out.push(new HumanMessage(message.text));
        break;
      case 'assistant':
        out.push(
          new AIMessage({
            content: message.text,
            tool_calls: (message.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name, args: isRecord(call.args) ? call.args : {}, type: 'tool_call' as const })),
          }),
        );
        break;
      case 'tool':
        out.push(new ToolMessage({ content: message.text, tool_call_id: message.toolCallId, name: message.name }));
        break;
    }
  }
  return out;
}

/** The text of a model reply, whatever block shape the provider used. */
export function replyText(content: AIMessage['content']): string {
  if (typeof content === 'string') return content;
  return content
    .map((block) => (isRecord(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text.length > 0)
    .join('\n');
}

/** A model reply as a provider-neutral assistant message. */
export function fromAiMessage(reply: AIMessage): Extract<Message, { role: 'assistant' }> {
  const calls = (reply.tool_calls ?? []).map((call, index) => ({
    id: call.id ?? `call_${index}`,
    name: call.name,
    args: (isRecord(call.args) ? call.args : {}) as JsonValue,
  }));
  const text = replyText(reply.content);
  return calls.length === 0 ? { role: 'assistant', text } : { role: 'assistant', text, toolCalls: calls };
}
