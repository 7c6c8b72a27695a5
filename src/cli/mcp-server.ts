import type { Readable, Writable } from 'node:stream'
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { createUserQuestions, isUserQuestionError } from '../protocol/index.js'
import { importPeer } from '../protocol/internal.js'
import type { AskStore, AskUserQuestionAnswerItem, UserQuestions } from '../protocol/index.js'
import { createElicitationProvider, keepAlive } from '../providers/mcp/index.js'
import { deploymentQuestions, draftPlan, planReviewQuestion } from './scenario.js'
import { packageVersion } from './version.js'

// Through importPeer, so `askseam mcp` without the SDK says in one line what to install.
const [{ McpServer: McpServerClass }, { StdioServerTransport }] = await Promise.all([
  importPeer(
    'askseam mcp',
    '@modelcontextprotocol/sdk',
    () => import('@modelcontextprotocol/sdk/server/mcp.js'),
  ),
  importPeer(
    'askseam mcp',
    '@modelcontextprotocol/sdk',
    () => import('@modelcontextprotocol/sdk/server/stdio.js'),
  ),
])

/** The tool an MCP client calls to run the demo agent. */
export const PLAN_DEPLOYMENT_TOOL = 'plan_deployment'

function answerOf(answers: readonly AskUserQuestionAnswerItem[], id: string) {
  return answers.find((answer) => answer.id === id) ?? { id, selected: [] }
}

/**
 * The demo agent's run: it asks the deployment questions, builds its plan from
 * the answers, submits the plan for review, and says what it decided.
 * Rejects with the seam's `UserQuestionError` when an ask fails.
 */
export async function planDeployment(seam: UserQuestions, signal?: AbortSignal): Promise<string> {
  const first = await seam.ask({
    questions: deploymentQuestions,
    ...(signal === undefined ? {} : { signal }),
  })
  const announce = answerOf(first.answers, 'announce')
  const { plan } = draftPlan(first.answers)
  const review = planReviewQuestion(plan)
  const second = await seam.ask({
    questions: [review],
    ...(signal === undefined ? {} : { signal }),
  })
  const verdict = answerOf(second.answers, review.id)
  const notes =
    announce.custom === undefined ? 'No release note.' : `Release note: ${announce.custom}`
  if (verdict.selected.includes(review.intent?.approve ?? 'Approve')) {
    return `Approved. The agent runs this plan:\n\n${plan}\n\n${notes}`
  }
  if (verdict.custom !== undefined) {
    return `Not approved. The reviewer wrote: "${verdict.custom}". The agent revises the plan and does not deploy.\n\n${plan}`
  }
  if (verdict.selected.length > 0) {
    return `Sent back for revision ("${verdict.selected.join(', ')}"). The agent does not deploy.\n\n${plan}`
  }
  return `The plan was neither approved nor refused, so the agent does not deploy.\n\n${plan}`
}

function failure(error: unknown): CallToolResult {
  const text = isUserQuestionError(error)
    ? `${error.code}: ${error.message}${error.code === 'ASK_CANCELLED' ? ' The agent stops without deploying.' : ''}`
    : `The agent failed: ${error instanceof Error ? error.message : String(error)}`
  return { isError: true, content: [{ type: 'text', text }] }
}

/** Options of {@link createDeploymentServer}. */
export interface DeploymentServerOptions {
  /** Each ask's deadline in milliseconds. @default undefined (wait for the human indefinitely) */
  timeoutMs?: number
  /** Where the asks are kept. @default the memory store */
  store?: AskStore
  /**
   * The longest time between two progress notifications while the tool waits
   * on the human (to a client that asked for progress), in milliseconds; 0: none.
   * @default 10000
   */
  keepAliveMs?: number
}

/**
 * The `askseam mcp` server before it is connected: an `McpServer` with a seam,
 * the elicitation provider, and the `plan_deployment` tool.
 */
export function createDeploymentServer(options: DeploymentServerOptions = {}): {
  server: McpServer
  seam: UserQuestions
} {
  const server = new McpServerClass(
    { name: 'askseam', version: packageVersion() },
    {
      instructions: `Call ${PLAN_DEPLOYMENT_TOOL} to run a demo agent that stops to ask the user about a deployment through elicitation forms.`,
    },
  )
  const seam = createUserQuestions({
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.store === undefined ? {} : { store: options.store }),
  })
  seam.registerProvider(createElicitationProvider({ server }))
  server.registerTool(
    PLAN_DEPLOYMENT_TOOL,
    {
      title: 'Plan a deployment',
      description:
        'Runs the askseam demo agent: it asks the user where to deploy checkout-service, which checks gate the traffic switch and what to announce, then submits its plan for review and returns what it decided. Needs a client that supports elicitation.',
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    (extra) =>
      keepAlive(
        extra,
        async (): Promise<CallToolResult> => {
          try {
            const text = await planDeployment(seam, extra.signal)
            return { content: [{ type: 'text', text }] }
          } catch (error: unknown) {
            return failure(error)
          }
        },
        options.keepAliveMs === undefined ? {} : { keepAliveMs: options.keepAliveMs },
      ),
  )
  return { server, seam }
}

/** Options of {@link runMcpServer}. */
export interface RunMcpServerOptions extends DeploymentServerOptions {
  /** Where the protocol comes in. @default process.stdin */
  input?: Readable
  /** Where the protocol goes out; nothing else may be written there. @default process.stdout */
  output?: Writable
  /** Where logs go. @default a line on process.stderr */
  log?: (line: string) => void
}

/**
 * Runs `askseam mcp`: the demo agent as an MCP server over stdio, asking its
 * questions through elicitation. Resolves once the client disconnects (its
 * end of stdin closes) and every pending ask is closed. Stdout carries only
 * the protocol; logs go to stderr.
 *
 * @example
 * ```ts
 * const { runMcpServer } = await import('./mcp-server.js')
 * await runMcpServer()
 * ```
 */
export async function runMcpServer(options: RunMcpServerOptions = {}): Promise<void> {
  const input = options.input ?? process.stdin
  const output = options.output ?? process.stdout
  const log = options.log ?? ((line: string) => process.stderr.write(`askseam mcp: ${line}\n`))
  const { server, seam } = createDeploymentServer(options)
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve()
  })
  server.server.onerror = (error) => log(`protocol error: ${error.message}`)
  // The SDK's stdio transport does not watch for the end of its input: a client that goes away would leave the server running.
  const hangUp = () => void server.close()
  input.once('end', hangUp)
  input.once('close', hangUp)
  await server.connect(new StdioServerTransport(input, output))
  log(`ready on stdio; tool ${PLAN_DEPLOYMENT_TOOL}`)
  await closed
  input.off('end', hangUp)
  input.off('close', hangUp)
  await seam.close()
  log('client disconnected; stopped')
}
