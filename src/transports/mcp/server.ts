import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { MailroomClient } from '../../client/index.js';
import { ACCOUNT_TOOLS } from './account-tools.js';
import { EMAIL_TOOLS } from './email-tools.js';
import { INBOX_TOOLS } from './inbox-tools.js';

/** Every tool, in the order agents list them; names match the hosted service's MCP server. */
const TOOLS = [...INBOX_TOOLS, ...EMAIL_TOOLS, ...ACCOUNT_TOOLS];

/** An MCP server whose tools all call the REST API through `client` (one per caller and key). */
export function createMcpServer(client: MailroomClient, version: string): McpServer {
  const server = new McpServer({ name: 'mailroom', version });
  for (const register of TOOLS) register(server, client);
  return server;
}
