import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { MailroomClient } from '../../client/index.js';
import type { McpClientSettings } from '../../config/mcp-settings.js';
import { createMcpServer } from './server.js';

/**
 * `mailroom mcp`: the MCP server on stdin/stdout for a local agent, calling a Mailroom API over
 * HTTPS with one key. Node's fetch trusts the system CAs plus NODE_EXTRA_CA_CERTS, so a self-signed
 * certificate is accepted only when the user points that variable at it.
 */
export async function runStdioMcpServer(settings: McpClientSettings, version: string): Promise<void> {
  const client = new MailroomClient({ baseUrl: settings.apiUrl, apiKey: settings.apiKey });
  await createMcpServer(client, version).connect(new StdioServerTransport());
}
