import { randomUUID } from 'node:crypto'
import { UserQuestionError, errorData, isUserQuestionError } from '../../protocol/index.js'
import type { AskStore, UserQuestions } from '../../protocol/index.js'
import { buildElicitationForm } from './form.js'
import { HeldAsks } from './held-asks.js'
import type { InputResponse } from './held-asks.js'
import { Round } from './round.js'
import {
  DEFAULT_STATE_TTL_MS,
  callDigest,
  openRequestState,
  sealRequestState,
  secretBytes,
} from './request-state.js'
import type { StateBinding, StatePayload } from './request-state.js'
import { canElicitForms, clientOf, responderOf } from './round-context.js'
import type { RoundTripContext } from './round-context.js'

/*
 * Multi Round-Trip Requests (MCP 2026-07-28, DESIGN §14) on the seam's keyed,
 * durable asks. A tool call's handler runs from the start on every round; a
 * round ends when the handler returns, or when every ask it is waiting on is
 * pending in the store and needs the user: then the call answers with an
 * InputRequiredResult naming those asks, sealed in its requestState. The
 * handler of that round is never resumed: its later continuations are dropped.
 * On the retry, on any instance sharing the store, the handler runs again;
 * its asks resume by key (settled ones return their outcome at once) and the
 * answers the client brought are committed through the seam to the asks the
 * requestState names, so the store's one conditional write decides (see
 * round.ts for how a round keeps up with a store other instances write).
 */

/** The content of a tool's result, as MCP `CallToolResult` has it. */
export interface ToolCallResult {
  /** What the model reads. */
  content: Array<{ type: 'text'; text: string } | Record<string, unknown>>
  /** The tool failed; `content` says why. */
  isError?: boolean
  /** Structured output, for a tool that declares an output schema. */
  structuredContent?: Record<string, unknown>
  /** Any other field MCP allows on a result. */
  [key: string]: unknown
}

/** An MCP `InputRequiredResult` (protocol 2026-07-28) carrying form elicitations. */
export interface InputRequired {
  /** The discriminator of an InputRequiredResult. */
  resultType: 'input_required'
  /** One form-mode `elicitation/create` per pending ask, keyed by the ask's id. */
  inputRequests: Record<string, { method: 'elicitation/create'; params: Record<string, unknown> }>
  /** The sealed state the client echoes on its retry. */
  requestState: string
  /** Any other field MCP allows on a result. */
  [key: string]: unknown
}

/**
 * A tool handler that asks through the seam: it receives a seam whose `ask`
 * belongs to this call (asks without a `key` get one derived from the call
 * and their order, so a handler that asks the same questions in the same
 * order on every run needs none), the tool's arguments and the request
 * context. It runs again from the start on every round of the call, so
 * work done before an ask is done again: ask first, act after. A
 * `UserQuestionError` it throws becomes an `isError` result naming the code,
 * as `askseam mcp` reports today; any other error, one with its message. The
 * asks outlive the round, so a `signal` given to `ask` is not passed on.
 */
export type UserQuestionsToolHandler<Args = Record<string, unknown>> = (
  seam: UserQuestions,
  args: Args,
  context: RoundTripContext,
) => Promise<ToolCallResult>

/** Options of {@link createRoundTrips}. */
export interface RoundTripsOptions {
  /** The seam the handlers ask through; the round trips register its provider. */
  seam: UserQuestions
  /** The store `seam` was created with: the round trips read an ask's key from it. */
  store: AskStore
  /**
   * The HMAC secret, at least 32 bytes, shared by every instance that may
   * take a retry: a requestState sealed by one is opened by another.
   */
  secret: string | Uint8Array
  /** How long a requestState is honoured, in milliseconds. @default 3_600_000 (one hour) */
  stateTtlMs?: number
}

/** The error thrown to the MCP server for a request that is refused as a whole: a JSON-RPC error. */
export class RoundTripRequestError extends Error {
  /** JSON-RPC Invalid Params. */
  readonly code = -32602
  /** The askseam error's code, message and details. */
  readonly data: Record<string, unknown>
  /** The askseam error the request was refused with. */
  readonly error: UserQuestionError
  /** @param error - the askseam error the request was refused with */
  constructor(error: UserQuestionError) {
    super(error.message)
    this.error = error
    this.name = 'RoundTripRequestError'
    this.data = { ...errorData(error) }
  }
}

/** Multi-round-trip serving of tools that ask through the seam. */
export interface RoundTrips {
  /**
   * Wraps a tool handler into the function an MCP SDK v2 server calls for
   * `tools/call`: `(args, context) => CallToolResult | InputRequiredResult`.
   * A refused requestState or `inputResponses` throws
   * {@link RoundTripRequestError}, which a low-level `Server` answers as a
   * JSON-RPC error (see {@link RoundTrips.serveTools}).
   */
  withUserQuestions<Args extends Record<string, unknown>>(
    name: string,
    handler: UserQuestionsToolHandler<Args>,
  ): (args: Args, context: RoundTripContext) => Promise<ToolCallResult | InputRequired>
  /** Unregisters the provider; asks already pending stay in the store. */
  close(): void
}

function refused(
  field: string,
  reason: string,
  message: string,
  extra: Record<string, unknown> = {},
) {
  return new RoundTripRequestError(
    new UserQuestionError(message, 'INVALID_REQUEST', { details: { field, reason, ...extra } }),
  )
}

/** A handler's failure as the model reads it: the code and message of an ask's error, else the error's message. */
function failureResult(error: unknown): ToolCallResult {
  const text = isUserQuestionError(error)
    ? `${error.code}: ${error.message}`
    : `The tool failed: ${error instanceof Error ? error.message : String(error)}`
  return { isError: true, content: [{ type: 'text', text }] }
}

/**
 * Serves tools that ask through the seam to MCP clients on protocol
 * 2026-07-28 by Multi Round-Trip Requests (DESIGN §14): registers, as the
 * seam's provider, a holder for every pending ask, and wraps tool handlers so
 * that a call whose handler waits on the user answers with an
 * `InputRequiredResult` (the form of each pending ask, and a sealed
 * requestState naming them), and the client's retry, on any instance sharing
 * the store, commits the answers and runs the handler again from the start.
 *
 * Use a durable store shared by every instance (SQLite on one machine,
 * Postgres for many) for a fleet; the memory store serves one process.
 *
 * @example
 * ```ts
 * import { Server } from '@modelcontextprotocol/server'
 * import { createUserQuestions, createMemoryStore } from 'askseam'
 * import { createRoundTrips, serveTools } from 'askseam/mcp'
 *
 * const store = createMemoryStore()
 * const seam = createUserQuestions({ store })
 * const rounds = createRoundTrips({ seam, store, secret: process.env.MCP_STATE_SECRET! })
 * const server = new Server({ name: 'my-agent', version: '1.0.0' }, { capabilities: { tools: {} } })
 * serveTools(server, rounds, [{ name: 'pick_db', description: 'Asks which database to use', handler: async (seam) => {
 *   const { answers } = await seam.ask({ questions: [{ id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] }] })
 *   return { content: [{ type: 'text', text: `Using ${answers[0]?.selected[0] ?? 'nothing'}` }] }
 * } }])
 * ```
 */
export function createRoundTrips(options: RoundTripsOptions): RoundTrips {
  const secret = secretBytes(options.secret)
  const ttl = options.stateTtlMs ?? DEFAULT_STATE_TTL_MS
  if (!Number.isFinite(ttl) || ttl <= 0) {
    throw new TypeError('createRoundTrips: stateTtlMs must be a positive number of milliseconds')
  }
  const held = new HeldAsks(options.store)
  const dispose = options.seam.registerProvider(held)

  function opened(binding: StateBinding, context: RoundTripContext): StatePayload | undefined {
    const raw = context.mcpReq.requestState()
    if (raw === undefined) return undefined
    try {
      return openRequestState(secret, raw, binding, Date.now())
    } catch (error: unknown) {
      if (isUserQuestionError(error)) throw new RoundTripRequestError(error)
      throw error
    }
  }

  /**
   * The retry's answers by `inputRequests` key, each one a key the
   * requestState names. A value the SDK set aside as no result at all
   * (`droppedInputResponseKeys`) is kept as unreadable: its ask ends
   * `BAD_ANSWER`, as a result that does not fit the form does.
   */
  function checkedResponses(
    context: RoundTripContext,
    state: StatePayload | undefined,
  ): Map<string, InputResponse> {
    const given = context.mcpReq.inputResponses ?? {}
    const dropped = context.mcpReq.droppedInputResponseKeys
    const unreadable = Array.isArray(dropped)
      ? dropped.filter((key): key is string => typeof key === 'string')
      : []
    const keys = [...Object.keys(given), ...unreadable]
    const responses = new Map<string, InputResponse>()
    if (keys.length === 0) return responses
    if (state === undefined) {
      throw refused(
        'inputResponses',
        'no-request-state',
        'The request carries inputResponses without the requestState they answer: retry with the requestState the server returned.',
      )
    }
    const named = new Set(state.asks.map((ask) => ask.requestKey))
    const unknown = keys.find((key) => !named.has(key))
    if (unknown !== undefined) {
      throw refused(
        'inputResponses',
        'unknown-key',
        `inputResponses holds "${unknown.slice(0, 80)}", which is not one of the inputRequests this requestState names: answer only the requests the server sent.`,
        { key: unknown },
      )
    }
    for (const [key, result] of Object.entries(given)) responses.set(key, { result })
    for (const key of unreadable) responses.set(key, { unreadable: true })
    return responses
  }

  return {
    withUserQuestions(name, handler) {
      return async (args, context) => {
        const binding: StateBinding = {
          method: context.mcpReq.method,
          call: callDigest(name, args),
        }
        const client = clientOf(context)
        if (client !== undefined) binding.client = client
        const state = opened(binding, context)
        const responses = checkedResponses(context, state)
        const round = new Round({
          seam: options.seam,
          store: options.store,
          held,
          callId: state?.callId ?? randomUUID(),
          sealed: state?.asks ?? [],
          responses,
          elicits: canElicitForms(context),
          responder: responderOf(context),
        })
        round.commitResponses()
        const ran = handler(round.facade(), args, context).then(
          (result) => ({ result }) as const,
          (error: unknown) => ({ error }) as const,
        )
        const outcome = await Promise.race([ran, round.blocked.then((asks) => ({ asks }) as const)])
        round.over = true
        if ('result' in outcome) return outcome.result
        if ('error' in outcome) {
          return failureResult(outcome.error)
        }
        const asks = outcome.asks.map((presentation) => ({
          requestKey: presentation.askId,
          askId: presentation.askId,
          key: presentation.key as string,
        }))
        const inputRequests: InputRequired['inputRequests'] = {}
        for (const presentation of outcome.asks) {
          const form = buildElicitationForm(presentation.questions, 'titled')
          inputRequests[presentation.askId] = {
            method: 'elicitation/create',
            params: { ...form.params, mode: 'form' },
          }
        }
        return {
          resultType: 'input_required',
          inputRequests,
          requestState: sealRequestState(
            secret,
            { callId: round.callId, asks },
            binding,
            Date.now() + ttl,
          ),
        }
      }
    },
    close() {
      dispose()
    },
  }
}
