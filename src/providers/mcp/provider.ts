import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js'
import type { InitializeResult } from '@modelcontextprotocol/sdk/types.js'
import {
  MAX_TIMEOUT_MS,
  UserQuestionError,
  encodeAnswer,
  toUserQuestionError,
} from '../../protocol/index.js'
import type { ProviderRequest, UserQuestionProvider } from '../../protocol/index.js'
import {
  AskEndReasons,
  MAX_RESPONDER_FIELD_LENGTH,
  toStorableId,
  admits,
  hasApproved,
} from '../../vocabulary/index.js'
import type { ProviderAnswer, Responder } from '../../vocabulary/index.js'
import { decodeContent, readElicitResult } from './decode.js'
import type { ElicitOutcome } from './decode.js'
import { createLateResponseFilter } from './quiet.js'
import { approvalsSoFar, buildElicitationForm, dialectFor } from './form.js'
import type { ElicitationDialect } from './form.js'
import { mcpTypes } from './sdk.js'

const { EmptyResultSchema, ErrorCode, McpError, ResultSchema } = mcpTypes

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
  /**
   * Puts the ask to the connected client; resolves with the answers and
   * `by`, the client as its `clientInfo` names it (DESIGN §12).
   */
  ask(request: ProviderRequest): Promise<ProviderAnswer>
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

/**
 * The signal handed to the SDK: aborted with the ending error's message, a
 * plain sentence, because the SDK sends `String(reason)` as the reason of
 * `notifications/cancelled`, which a host may show to the user (the error
 * itself would read "UserQuestionError: …").
 */
function sdkSignal(signal: AbortSignal): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController()
  const onAbort = () => controller.abort(endingError(signal).message)
  if (signal.aborted) onAbort()
  else signal.addEventListener('abort', onAbort, { once: true })
  return { signal: controller.signal, release: () => signal.removeEventListener('abort', onAbort) }
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
    { details: { reason: AskEndReasons.MCP_NOT_CONNECTED } },
  )
}

/** The first protocol version with elicitation. */
const FIRST_ELICITATION_VERSION = '2025-06-18'

function elicitationTooOld(version: string): UserQuestionError {
  return new UserQuestionError(
    `The connected MCP client negotiated protocol ${version}, which has no elicitation (it arrived in ${FIRST_ELICITATION_VERSION}), so it cannot put questions to the user even though it declared the capability. Use a client that speaks ${FIRST_ELICITATION_VERSION} or later, or register another provider such as the terminal or the web console.`,
    'PROVIDER_FAILED',
    { details: { reason: AskEndReasons.ELICITATION_UNSUPPORTED, protocolVersion: version } },
  )
}

export function elicitationUnsupported(): UserQuestionError {
  return new UserQuestionError(
    'The connected MCP client does not support form elicitation (it declared no elicitation.form capability), so it cannot put questions to the user. Use a client that supports elicitation, or register another provider such as the terminal or the web console.',
    'PROVIDER_FAILED',
    { details: { reason: AskEndReasons.ELICITATION_UNSUPPORTED } },
  )
}

/** The error that ended the ask, from its signal. */
function endingError(signal: AbortSignal): UserQuestionError {
  return toUserQuestionError(signal.reason, 'ASK_ABORTED', 'The ask was taken down')
}

/** Whether `error` is a schema validation failure (zod's), as the SDK rejects with for a result that does not parse. */
function isValidationError(error: unknown): boolean {
  try {
    return (
      typeof error === 'object' &&
      error !== null &&
      Array.isArray((error as { issues?: unknown }).issues)
    )
  } catch {
    return false
  }
}

/** Turns what `request()` rejected with into the ask's coded error. */
function requestFailure(error: unknown, signal: AbortSignal): UserQuestionError {
  if (signal.aborted) return endingError(signal)
  if (isValidationError(error)) {
    // Only the loose result envelope is checked by the SDK now; its `_meta` can still fail it.
    return new UserQuestionError(
      "The MCP client's elicitation result is not a valid result object (its _meta does not parse).",
      'BAD_ANSWER',
      { cause: error, details: { rule: 'result-shape' } },
    )
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return new UserQuestionError(
      "The MCP elicitation request timed out at the ask's deadline.",
      'ASK_TIMEOUT',
      { cause: error, details: { reason: AskEndReasons.MCP_REQUEST_TIMEOUT } },
    )
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    return new UserQuestionError(
      'The MCP client disconnected before answering; ask again once a client is connected.',
      'ASK_ABORTED',
      { cause: error, details: { reason: AskEndReasons.CLIENT_DISCONNECTED } },
    )
  }
  if (error instanceof McpError) {
    return new UserQuestionError(
      `The MCP client failed the elicitation request: ${error.message}`,
      'PROVIDER_FAILED',
      { cause: error, details: { reason: AskEndReasons.CLIENT_ERROR, mcpCode: error.code } },
    )
  }
  return toUserQuestionError(error, 'PROVIDER_FAILED', 'The MCP elicitation request failed')
}

/**
 * Who answers through the connected client (DESIGN §12): the client as its
 * `initialize` named itself, the only identity this transport has.
 */
function clientResponder(server: Server): Responder | undefined {
  const info = server.getClientVersion()
  if (info === undefined || typeof info.name !== 'string' || info.name.trim() === '') {
    return undefined
  }
  const title = typeof info.title === 'string' && info.title.trim() !== '' ? info.title : undefined
  // A client may call itself anything; a Responder's fields are of a length and text the seam holds to.
  const clamp = (text: string) => toStorableId(text, MAX_RESPONDER_FIELD_LENGTH)
  return { id: clamp(info.name), name: clamp(title ?? info.name), via: 'mcp' }
}

/**
 * Whether the ask is not this client's to answer: its `answerers` leave the
 * client out, or the client's approval is counted already.
 */
function notForClient(request: ProviderRequest, by: Responder | undefined): boolean {
  if (!admits(request.answerers, by)) return true
  return hasApproved(request.approvals?.given, by)
}

/** Sends nothing and waits for the ask to end elsewhere: rejects with what ended it. */
function waitElsewhere(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    signal.addEventListener('abort', () => reject(endingError(signal)), { once: true })
  })
}

export function cancelled(result: ElicitOutcome): UserQuestionError {
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
 * cancels the request (the client receives `notifications/cancelled`, whose
 * reason is the ending error's message).
 *
 * The provider checks the client's result itself: a value that does not fit
 * the form is `BAD_ANSWER` naming the question; a `null` value and an empty
 * string for an untouched single choice are skips. A client without the
 * `elicitation.form` capability, or one that negotiated a protocol older than
 * 2025-06-18 (which has no elicitation, whatever it declares), is sent
 * nothing: the ask rejects `PROVIDER_FAILED` with `details.reason:
 * 'elicitation-unsupported'` — not `NO_PROVIDER`, because a provider is
 * registered; it is the client that cannot ask. A late answer to a request
 * already taken down is ignored without a word to the server's `onerror`.
 *
 * Who answered (DESIGN §12) is the client as its `clientInfo` names it:
 * `{ id: name, name: title ?? name, via: 'mcp' }`. An ask whose `answerers`
 * leave that client out, or whose approval it gave already, is not sent: it
 * waits for the ask to end elsewhere. An ask that needs several approvals
 * says how many it has in the message ("1 of 2 approvals so far: alice").
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
  const lateResponses = createLateResponseFilter(server)
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
    async ask(request: ProviderRequest): Promise<ProviderAnswer> {
      const { signal, questions } = request
      if (signal.aborted) throw requestFailure(signal.reason, signal)
      const capabilities = server.getClientCapabilities()
      // Capabilities arrive with initialize: before that there is no client to ask yet.
      if (server.transport === undefined || capabilities === undefined) throw notConnected()
      if (capabilities.elicitation?.form === undefined) throw elicitationUnsupported()
      if (negotiated !== undefined && negotiated < FIRST_ELICITATION_VERSION) {
        throw elicitationTooOld(negotiated)
      }
      const by = clientResponder(server)
      if (notForClient(request, by)) return waitElsewhere(signal)
      const form = buildElicitationForm(questions, dialectFor(negotiated))
      if (request.approvals !== undefined) {
        form.params.message = `${approvalsSoFar(request.approvals)}\n\n${form.params.message}`
      }
      burnRequestIdZero(server)
      const forSdk = sdkSignal(signal)
      const requestId = lateResponses.nextRequestId()
      let raw: unknown
      try {
        // The loose result envelope only: the content is checked here, so a
        // value that does not fit is BAD_ANSWER naming its question, not a
        // schema dump from the SDK.
        raw = await server.request(
          { method: 'elicitation/create', params: form.params },
          ResultSchema,
          requestOptions(forSdk.signal, request.deadline),
        )
      } catch (error: unknown) {
        // Taken down or timed out: a response the client may still send is expected, not an error.
        if (requestId !== undefined) lateResponses.expectLate(requestId)
        throw requestFailure(error, signal)
      } finally {
        forSdk.release()
      }
      const result = readElicitResult(raw)
      if (result.action !== 'accept') throw cancelled(result)
      const answer = encodeAnswer(questions, decodeContent(form, result.content))
      return by === undefined ? answer : { ...answer, by }
    },
  }
}
