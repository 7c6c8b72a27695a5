import type { Server } from '@modelcontextprotocol/server'
import type { RoundTripContext } from './round-context.js'
import type { RoundTrips, UserQuestionsToolHandler } from './rounds.js'
import { RoundTripRequestError } from './rounds.js'
import { UserQuestionError } from '../../protocol/index.js'

/** One tool served by {@link serveTools}. */
export interface RoundTripTool<Args extends Record<string, unknown> = Record<string, unknown>> {
  /** The tool's name, as `tools/call` names it. */
  name: string
  /** A title for people. */
  title?: string
  /** What the tool does, for the model. */
  description?: string
  /** The JSON Schema of the arguments. @default an object with any properties */
  inputSchema?: { type: 'object'; [key: string]: unknown }
  /** MCP tool annotations (`readOnlyHint`, …). */
  annotations?: Record<string, unknown>
  /** What the tool does; it asks through the seam it is given. */
  handler: UserQuestionsToolHandler<Args>
}

/**
 * Registers `tools/list` and `tools/call` for `tools` on a low-level MCP SDK
 * v2 `Server` (created with `capabilities: { tools: {} }`), each call served
 * by `rounds`. Registering on the low-level server, not through `McpServer`,
 * lets a refused requestState or `inputResponses` reach the client as a
 * JSON-RPC error (Invalid Params, the askseam error in `data`) instead of a
 * tool result: nothing the client sent was acted on.
 */
export function serveTools(
  server: Server,
  rounds: RoundTrips,
  tools: readonly RoundTripTool[],
): void {
  const byName = new Map(
    tools.map((tool) => [
      tool.name,
      { tool, call: rounds.withUserQuestions(tool.name, tool.handler) },
    ]),
  )
  server.setRequestHandler('tools/list', () => ({
    tools: tools.map((tool) => ({
      name: tool.name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      ...(tool.description === undefined ? {} : { description: tool.description }),
      inputSchema: tool.inputSchema ?? { type: 'object' as const },
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    })),
  }))
  server.setRequestHandler('tools/call', async (request, context) => {
    const served = byName.get(request.params.name)
    if (served === undefined) {
      throw new RoundTripRequestError(
        new UserQuestionError(
          `There is no tool named "${request.params.name.slice(0, 80)}".`,
          'INVALID_REQUEST',
          {
            details: { field: 'name' },
          },
        ),
      )
    }
    const args = (request.params.arguments ?? {}) as Record<string, unknown>
    return (await served.call(args, context as unknown as RoundTripContext)) as never
  })
}
