// The declarations name Node types (AbortSignal, streams, node:http); TypeScript 6+
// no longer loads @types/node unasked, so each entry point asks for it.
/// <reference types="node" preserve="true" />
/**
 * askseam/mcp: the MCP elicitation provider. Each ask becomes one form-mode
 * `elicitation/create` request to the client connected to an MCP server built
 * with the official `@modelcontextprotocol/sdk`; `keepAlive` keeps a tool call
 * that waits on a human alive with progress notifications.
 *
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
 * import { createUserQuestions } from 'askseam'
 * import { createElicitationProvider } from 'askseam/mcp'
 *
 * const server = new McpServer({ name: 'my-agent', version: '1.0.0' })
 * const seam = createUserQuestions()
 * seam.registerProvider(createElicitationProvider({ server }))
 * await server.connect(new StdioServerTransport())
 * ```
 */
export { createElicitationProvider } from './provider.js'
export type { ElicitationProvider, ElicitationProviderOptions } from './provider.js'
export type { ElicitationDialect } from './form.js'
export { keepAlive } from './keepalive.js'
export type { KeepAliveExtra, KeepAliveOptions } from './keepalive.js'
export { RoundTripRequestError, createRoundTrips } from './rounds.js'
export type { RoundTripContext } from './round-context.js'
export type {
  InputRequired,
  RoundTrips,
  RoundTripsOptions,
  ToolCallResult,
  UserQuestionsToolHandler,
} from './rounds.js'
export { serveTools } from './serve-tools.js'
export type { RoundTripTool } from './serve-tools.js'
