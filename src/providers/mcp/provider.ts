import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { ElicitResult, InitializeResult } from '@modelcontextprotocol/sdk/types.js'
import {
  MAX_TIMEOUT_MS,
  UserQuestionError,
  encodeAnswer,
  toUserQuestionError,
} from '../../protocol/index.js'
import type {
  AskUserQuestionAnswer,
  ProviderRequest,
  UserQuestionProvider,
} from '../../protocol/index.js'
import { decodeContent } from './decode.js'
import { buildElicitationForm, dialectFor } from './form.js'
import type { ElicitationDialect } from './form.js'
import { mcpTypes } from './sdk.js'

const { ElicitResultSchema, EmptyResultSchema, ErrorCode, McpError } = mcpTypes

/** Options of {@link createElicitationProvider}. */
export interface ElicitationProviderOptions {
  /** The MCP server whose connected client answers: an `McpServer` or a low-level `Server`. */
  server: McpServer | Server
  /**
   * The protocol version to shape the form for. By default the provider reads
   * the version the client negotiates in `initialize` (create the provider
   * before the server connects); when it never saw one, it sends the
   * 2025-06-18 form, which every version with elicitation accepts.
   * @default undefined (detected)
   */
  protocolVersion?: string
}

/** A {@link UserQuestionProvider} that asks through MCP form elicitation. */
export interface ElicitationProvider extends UserQuestionProvider {
  /** The protocol version the connected client negotiated, once seen (or the one configured). */
  readonly protocolVersion: string | undefined
  /** The schema shape the next ask will use. */
  readonly dialect: ElicitationDialect
}

/**
 * Slack added to the MCP request timeout beyond the ask's deadline: the seam
 * owns time (DESIGN §6), so its deadline fires first and the SDK's timer is
 * only a backstop.
 */
const DEADLINE_SLACK_MS = 1_000

/** How long the request-id-0 ping may stay unanswered before the SDK drops it. */
const PING_TIMEOUT_MS = 60_000

function lowLevel(server: McpServer | Server): Server {
  return 'getClientCapabilities' in server ? server : server.server
}

/**
 * The SDK's `Server` keeps the negotiated protocol version to itself: it is
 * only in the `initialize` result. Its initialize handler calls
 * `this._oninitialize` at request time, so wrapping that method on this
 * instance sees every (re)initialization without replacing the handler.
 */
function watchNegotiatedVersion(server: Server, onVersion: (version: string) => void): void {
  const target = server as unknown as {
    _oninitialize?: (request: unknown) => Promise<InitializeResult>
  }
  const original = target._oninitialize
  if (typeof original !== 'function') return
  target._oninitialize = async (request: unknown) => {
    const result = await original.call(server, request)
    onVersion(result.protocolVersion)
    return result
  }
}

const burnt = new WeakSet<Server>()

/**
 * A receiver built on the TypeScript SDK 1.32.2 ignores `notifications/cancelled`
 * for request id 0 (its handler returns early on a falsy `requestId`; upstream
 * issue #2283), so the first request a server ever sends could never be taken
 * down. Ids are allocated synchronously when a request is sent, so a ping sent
 * first owns id 0 and every elicitation gets an id the client can cancel.
 */
function burnRequestIdZero(server: Server): void {
  if (burnt.has(server)) return
  burnt.add(server)
  server
    .request({ method: 'ping' }, EmptyResultSchema, { timeout: PING_TIMEOUT_MS })
    .catch(() => undefined)
}

function requestOptions(signal: AbortSignal, deadline: number | undefined): RequestOptions {
  if (deadline === undefined) {
    // Never the SDK's 60 s default: a human may take all day. A client that reports progress keeps it alive past a timer's limit.
    return {
      signal,
      timeout: MAX_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: () => undefined,
    }
  }
  const remaining = Math.max(0, deadline - Date.now()) + DEADLINE_SLACK_MS
  return { signal, timeout: Math.min(remaining, MAX_TIMEOUT_MS) }
}

function notConnected(): UserQuestionError {
  return new UserQuestionError(
    'No MCP client is connected to the server: connect the server to a transport and let a client initialize before asking.',
    'PROVIDER_FAILED',
    { details: { reason: 'mcp-not-connected' } },
  )
}

function elicitationUnsupported(): UserQuestionError {
  return new UserQuestionError(
    'The connected MCP client does not support form elicitation (it declared no elicitation.form capability), so it cannot put questions to the user. Use a client that supports elicitation, or register another provider such as the terminal or the web console.',
    'PROVIDER_FAILED',
    { details: { reason: 'elicitation-unsupported' } },
  )
}

/** Turns what `request()` rejected with into the ask's coded error. */
function requestFailure(error: unknown, signal: AbortSignal): UserQuestionError {
  if (signal.aborted) {
    return toUserQuestionError(signal.reason, 'ASK_ABORTED', 'The ask was taken down')
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new UserQuestionError(
      "The MCP elicitation request timed out at the ask's deadline.",
      'ASK_TIMEOUT',
      { cause: error, details: { reason: 'mcp-request-timeout' } },
    )
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return new UserQuestionError(
      'The MCP client disconnected before answering; ask again once a client is connected.',
      'ASK_ABORTED',
      { cause: error, details: { reason: 'client-disconnected' } },
    )
  }
  if (error instanceof McpError) {
    return new UserQuestionError(
      `The MCP client failed the elicitation request: ${error.message}`,
      'PROVIDER_FAILED',
      { cause: error, details: { reason: 'client-error', mcpCode: error.code } },
    )
  }
  return toUserQuestionError(error, 'PROVIDER_FAILED', 'The MCP elicitation request failed')
}

function cancelled(result: ElicitResult): UserQuestionError {
  return new UserQuestionError(
    result.action === 'decline'
      ? 'The user declined to answer in the MCP client.'
      : 'The user dismissed the questions in the MCP client without answering.',
    'ASK_CANCELLED',
    { details: { action: result.action } },
  )
}

/**
 * Creates a provider that puts each ask to the connected MCP client as one
 * form-mode `elicitation/create` request: the questions as a readable message
 * and a flat schema with one property per question (plus an optional typed
 * answer beside each question with options). `accept` becomes the canonical
 * answer, `decline` and `cancel` reject `ASK_CANCELLED`, and the ask's signal
 * cancels the request (the client receives `notifications/cancelled`).
 *
 * @example
 * ```ts
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
 * import { createUserQuestions } from 'askseam'
 * import { createElicitationProvider } from 'askseam/mcp'
 *
 * const server = new McpServer({ name: 'my-agent', version: '1.0.0' })
 * const seam = createUserQuestions()
 * seam.registerProvider(createElicitationProvider({ server }))
 * // register tools that call seam.ask(...), then server.connect(transport)
 * ```
 */
export function createElicitationProvider(
  options: ElicitationProviderOptions,
): ElicitationProvider {
  const server = lowLevel(options.server)
  let negotiated = options.protocolVersion
  if (negotiated === undefined) {
    watchNegotiatedVersion(server, (version) => {
      negotiated = version
    })
  }

  return {
    get protocolVersion() {
      return negotiated
    },
    get dialect() {
      return dialectFor(negotiated)
    },
    async ask(request: ProviderRequest): Promise<AskUserQuestionAnswer> {
      const { signal, questions } = request
      if (signal.aborted) throw requestFailure(signal.reason, signal)
      const capabilities = server.getClientCapabilities()
      // Capabilities arrive with initialize: before that there is no client to ask yet.
      if (server.transport === undefined || capabilities === undefined) throw notConnected()
      if (capabilities.elicitation?.form === undefined) throw elicitationUnsupported()
      const form = buildElicitationForm(questions, dialectFor(negotiated))
      burnRequestIdZero(server)
      let result: ElicitResult
      try {
        result = await server.request(
          { method: 'elicitation/create', params: form.params },
          ElicitResultSchema,
          requestOptions(signal, request.deadline),
        )
      } catch (error: unknown) {
        throw requestFailure(error, signal)
      }
      if (result.action !== 'accept') throw cancelled(result)
      return encodeAnswer(questions, decodeContent(form, result.content))
    },
  }
}
