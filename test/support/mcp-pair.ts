import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type {
  ElicitRequestFormParams,
  ElicitResult,
  JSONRPCMessage,
  RequestId,
} from '@modelcontextprotocol/sdk/types.js'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { UserQuestions, UserQuestionsOptions } from '../../src/protocol/index.js'
import { createElicitationProvider } from '../../src/providers/mcp/index.js'
import type { ElicitationProvider } from '../../src/providers/mcp/index.js'

/** One elicitation the client received and has not answered yet. */
export interface IncomingElicitation {
  readonly params: ElicitRequestFormParams
  readonly requestId: RequestId
  /** The client handler's signal: aborts when the server sends notifications/cancelled. */
  readonly signal: AbortSignal
  /** Resolves with the cancel reason once the client hears notifications/cancelled. */
  readonly cancelled: Promise<unknown>
  /** Answers through the SDK client (which drops the answer if the request was cancelled). */
  respond(result: ElicitResult): void
}

/** Hands out elicitations in arrival order, each as a promise. */
export class ElicitationInbox {
  readonly #arrived: IncomingElicitation[] = []
  readonly #waiting: Array<(incoming: IncomingElicitation) => void> = []
  /** Every elicitation received so far. */
  readonly all: IncomingElicitation[] = []

  push(incoming: IncomingElicitation): void {
    this.all.push(incoming)
    const waiter = this.#waiting.shift()
    if (waiter === undefined) this.#arrived.push(incoming)
    else waiter(incoming)
  }

  /** The next elicitation not yet taken. */
  next(): Promise<IncomingElicitation> {
    const ready = this.#arrived.shift()
    if (ready !== undefined) return Promise.resolve(ready)
    return new Promise((resolve) => this.#waiting.push(resolve))
  }
}

/** What {@link connectPair} builds. */
export interface McpPair {
  seam: UserQuestions
  provider: ElicitationProvider
  /** Unregisters the provider from the seam. */
  dispose: () => void
  server: McpServer | Server
  client: Client
  clientTransport: Transport
  inbox: ElicitationInbox
  /** Messages the client sent, in order (after any rewrite). */
  sent: JSONRPCMessage[]
  /** Messages the client received from the server after initialization, in order. */
  received: JSONRPCMessage[]
  close(): Promise<void>
}

/** Options of {@link connectPair}. */
export interface McpPairOptions {
  /** Declare elicitation in the client's capabilities. @default true */
  elicitation?: boolean
  /** Make the client ask for this protocol version in initialize. @default the SDK's latest */
  protocolVersion?: string
  /** Build a low-level `Server` instead of an `McpServer`. */
  lowLevel?: boolean
  seam?: UserQuestionsOptions
  /** The client's `clientInfo` in initialize. @default `{ name: 'askseam-test-client', version: '0.0.0' }` */
  clientInfo?: { name: string; version: string; title?: string }
  /** Answer elicitations at once, from their params; without it they wait in the inbox. */
  autoRespond?: (params: ElicitRequestFormParams) => ElicitResult
}

/**
 * An MCP server with a seam and the elicitation provider, and the official SDK
 * client connected to it over InMemoryTransport, with an elicitation handler
 * the test controls.
 */
export async function connectPair(options: McpPairOptions = {}): Promise<McpPair> {
  const info = { name: 'askseam-test-server', version: '0.0.0' }
  const server = options.lowLevel === true ? new Server(info) : new McpServer(info)
  const seam = createUserQuestions(options.seam)
  const provider = createElicitationProvider({ server })
  const dispose = seam.registerProvider(provider)
  const inbox = new ElicitationInbox()
  const client = new Client(
    options.clientInfo ?? { name: 'askseam-test-client', version: '0.0.0' },
    { capabilities: options.elicitation === false ? {} : { elicitation: { form: {} } } },
  )
  if (options.elicitation !== false) {
    client.setRequestHandler(ElicitRequestSchema, (request, extra) => {
      const params = request.params as ElicitRequestFormParams
      if (options.autoRespond !== undefined) return options.autoRespond(params)
      return new Promise<ElicitResult>((resolve) => {
        const cancelled = new Promise<unknown>((done) => {
          if (extra.signal.aborted) done(extra.signal.reason)
          extra.signal.addEventListener('abort', () => done(extra.signal.reason), { once: true })
        })
        inbox.push({
          params,
          requestId: extra.requestId,
          signal: extra.signal,
          cancelled,
          respond: resolve,
        })
      })
    })
  }
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair()
  const sent: JSONRPCMessage[] = []
  const send = clientTransport.send.bind(clientTransport)
  clientTransport.send = (message, sendOptions) => {
    let outgoing = message
    if (
      options.protocolVersion !== undefined &&
      'method' in message &&
      message.method === 'initialize'
    ) {
      outgoing = {
        ...message,
        params: { ...message.params, protocolVersion: options.protocolVersion },
      }
    }
    sent.push(outgoing)
    return send(outgoing, sendOptions)
  }
  await server.connect(serverTransport)
  await client.connect(clientTransport)
  const received: JSONRPCMessage[] = []
  const deliver = clientTransport.onmessage
  clientTransport.onmessage = (message, extra) => {
    received.push(message)
    deliver?.(message, extra)
  }
  return {
    seam,
    provider,
    dispose,
    server,
    client,
    clientTransport,
    inbox,
    sent,
    received,
    async close() {
      await seam.close()
      await client.close()
      await server.close()
    },
  }
}

/** The `notifications/cancelled` messages among `messages` that name `requestId`. */
export function cancellationsFor(messages: readonly JSONRPCMessage[], requestId: RequestId) {
  return messages.filter(
    (message) =>
      'method' in message &&
      message.method === 'notifications/cancelled' &&
      (message.params as { requestId?: unknown } | undefined)?.requestId === requestId,
  )
}
