/**
 * askseam/mcp: the MCP elicitation provider. Each ask becomes one form-mode
 * `elicitation/create` request to the client connected to an MCP server built
 * with the official `@modelcontextprotocol/sdk`.
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
export { buildElicitationForm, dialectFor, elicitationMessage } from './form.js'
export type { ElicitationDialect, ElicitationForm, QuestionField } from './form.js'
export { decodeContent } from './decode.js'
