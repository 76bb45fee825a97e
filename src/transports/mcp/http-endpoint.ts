import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MailroomClient } from '../../client/index.js';
import { errorResponses } from '../http/schemas/common.js';
import { callerHeaders, injectFetch } from './inject-fetch.js';

/** The in-process client's address is never dialled: injectFetch routes by path only. */
const IN_PROCESS_URL = 'https://mailroom.in-process';

const JsonRpcBody = Type.Union([Type.Object({}, { additionalProperties: true }), Type.Array(Type.Object({}, { additionalProperties: true }))], {
  description: 'A JSON-RPC 2.0 message (or batch) of the Model Context Protocol',
});

/**
 * The MCP SDK and zod (some 10 MB of heap) load on the first MCP request, not with every server:
 * most nodes never get one.
 */
async function importMcp() {
  const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/streamableHttp.js'), import('./server.js')]);
  return { StreamableHTTPServerTransport, createMcpServer };
}
let mcp: ReturnType<typeof importMcp> | undefined;

/**
 * Stateless streamable HTTP: each request gets its own MCP server whose tools call this API as the
 * caller (same key, same scoping). GET and DELETE answer 405, as the protocol allows without sessions.
 */
async function handle(api: FastifyInstance, version: string, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const { StreamableHTTPServerTransport, createMcpServer } = await (mcp ??= importMcp());
  const client = new MailroomClient({ baseUrl: IN_PROCESS_URL, apiKey: '', fetch: injectFetch(api, callerHeaders(request.headers)) });
  const server = createMcpServer(client, version);
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.hijack();
  reply.raw.on('close', () => {
    void transport.close();
    void server.close();
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  } catch (error) {
    request.log.error({ err: error }, 'MCP request failed');
    if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' });
    reply.raw.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }));
  }
}

/** /api/v1/mcp: the MCP server for remote agents (docs/mcp.md); an inbox-scoped key keeps its scope. */
export function registerMcpEndpoint(api: FastifyInstance, version: string): void {
  const tags = ['MCP'];
  const config = { access: 'inbox' as const, bearerKey: true };
  const handler = (request: FastifyRequest, reply: FastifyReply) => handle(api, version, request, reply);
  api.post('/mcp', {
    config,
    schema: {
      tags,
      summary: 'Model Context Protocol over streamable HTTP (stateless, JSON responses); key in x-api-key or Authorization: Bearer',
      body: JsonRpcBody,
      response: {
        200: Type.Object({}, { additionalProperties: true, description: 'The JSON-RPC response' }),
        202: Type.Null({ description: 'A notification or response was accepted' }),
        ...errorResponses,
      },
    },
    handler,
  });
  api.route({
    method: ['GET', 'DELETE'],
    url: '/mcp',
    config,
    // Hidden: they only answer 405, as the protocol requires of an endpoint without server-initiated streams.
    schema: { hide: true },
    handler,
  });
}
