import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ShapeOutput, ZodRawShapeCompat } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { MailroomApiError, type MailroomClient } from '../../client/index.js';

/** Adds one tool to a server, bound to the API client that carries the caller's key. */
export type ToolRegistration = (server: McpServer, client: MailroomClient) => void;

const json = (value: unknown, isError = false): CallToolResult => ({
  content: [{ type: 'text', text: JSON.stringify(value ?? null, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

/** An API error keeps the service's error body (statusCode, code, message, field), so the agent can act on it. */
function errorResult(error: unknown): CallToolResult {
  if (error instanceof MailroomApiError) return json({ error: error.body }, true);
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return json({ error: { code: 'REQUEST_FAILED', message: `${error instanceof Error ? error.message : String(error)}${cause}` } }, true);
}

/**
 * A tool whose result is always JSON text: the API's answer, or `{error}` with isError set. Every
 * call goes through the REST API with the caller's key, so the API's auth and inbox scoping apply.
 */
export function tool<Shape extends ZodRawShapeCompat>(
  name: string,
  description: string,
  input: Shape,
  run: (client: MailroomClient, args: ShapeOutput<Shape>) => Promise<unknown>,
): ToolRegistration {
  return (server, client) => {
    const callback = async (args: ShapeOutput<Shape>): Promise<CallToolResult> => {
      try {
        return json(await run(client, args));
      } catch (error) {
        return errorResult(error);
      }
    };
    // registerTool's callback type is a conditional type over Shape that TypeScript cannot resolve
    // for a generic Shape; callback has exactly the type it resolves to for any concrete one.
    server.registerTool(name, { description, inputSchema: input }, callback as never);
  };
}
