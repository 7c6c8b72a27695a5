import { createActor } from 'xstate'
import type { Actor } from 'xstate'
import { relayAskMachine, responseEvent } from '../../machines/index.js'
import type {
  RelayAskEmitted,
  RelayAskEvent,
  RelayAskOutput,
  RelayOutcome,
  RelayResponse,
} from '../../machines/index.js'
import {
  UserQuestionError,
  outcomeError,
  errorData,
  toUserQuestionError,
  validateAnswer,
} from '../../protocol/index.js'
import type {
  AskUserQuestionItem,
  ProviderRequest,
  ProviderSettlement,
  UserQuestionProvider,
  UserQuestions,
} from '../../protocol/index.js'
import { AskEndReasons, hasApproved, isApproval } from '../../vocabulary/index.js'
import type { ApprovalCount, ProviderAnswer, Responder } from '../../vocabulary/index.js'
import { interpretResult, parseClientFrame } from './frames.js'
import type {
  ApprovalIds,
  QuestionRequestedFrame,
  ReceiptFrame,
  ReceiptReason,
  ServerFrame,
} from './frames.js'
import { createRelayClients } from './relay-clients.js'
import type { Connection } from './relay-clients.js'
import { createReceiptWaiters } from './relay-waiters.js'
import type { Relay, RelayClient, RelayOptions, RelayReceipt } from './relay-types.js'

type RelayAskActor = Actor<typeof relayAskMachine>

interface Entry {
  rpcId: string
  /**
   * This entry's own name: the seam may present one ask again under the same
   * `rpcId` (after a vote is counted), and what waits on the old entry must
   * not be told about the new one.
   */
  serial: string
  sessionId: string | undefined
  questions: AskUserQuestionItem[]
  /** Who may answer; absent: anyone `authorize` lets see the session. */
  answerers: readonly string[] | undefined
  /** The approvals given so far, on an ask that needs several. */
  approvals: ApprovalCount | undefined
  actor: RelayAskActor
  /** The `question/requested` frame, and its text, serialised once for every client and every replay. */
  frame: QuestionRequestedFrame
  requested: string
}

const receipt = (
  rpcId: string,
  reason?: ReceiptReason,
  message?: string,
  counted?: ApprovalIds,
): string => {
  const frame: ReceiptFrame =
    reason === undefined
      ? { type: 'receipt', rpcId, accepted: true }
      : { type: 'receipt', rpcId, accepted: false, reason }
  if (message !== undefined) frame.message = message
  if (counted !== undefined) frame.counted = counted
  return JSON.stringify(frame)
}

/** An approval count as the wire carries it: the approvers' ids. */
const approvalIds = ({ required, given }: ApprovalCount): ApprovalIds => ({
  required,
  given: given.map((responder) => responder.id),
})

const frameText = (frame: ServerFrame): string => JSON.stringify(frame)

/**
 * Creates the host relay and registers it as `seam`'s provider. Each ask the
 * seam hands it is entered in a pending table keyed by `askId` (the wire's
 * `rpcId`) and then sent as `question/requested` to every connected client
 * allowed to see its session; a client that connects later is sent every
 * still-pending ask, same `rpcId`. The first valid `question/respond` settles
 * the ask and removes it at once; everything after gets a `not-pending`
 * receipt. Whatever ends an ask, every client that may see it is sent
 * `question/resolved`.
 *
 * Throws `DUPLICATE_PROVIDER` when the seam already has a provider.
 *
 * @example
 * ```ts
 * const relay = createRelay(seam, { authorize: (client, sessionId) => sessionId === 'main' })
 * const connection = relay.connect({ send: (text) => socket.send(text), close: () => socket.close() })
 * socket.on('message', (data) => connection.receive(String(data)))
 * socket.on('close', () => connection.disconnect())
 * ```
 */
export function createRelay<TClient extends RelayClient = RelayClient>(
  seam: Pick<UserQuestions, 'registerProvider'>,
  options: RelayOptions<TClient> = {},
): Relay<TClient> {
  const entries = new Map<string, Entry>()
  const waiters = createReceiptWaiters()
  let disposed = false
  let serials = 0
  const clients = createRelayClients(options, {
    onFrame: (connection, data) => answerFrame(connection, data),
    replay(connection) {
      for (const entry of [...entries.values()]) {
        if (entries.get(entry.rpcId) === entry && mayAnswer(connection.client, entry)) {
          clients.sendTo(connection, entry.requested)
        }
      }
    },
  })
  const { sendTo, mayAnswer, responderOf } = clients
  const broadcast = (entry: Entry, data: string) =>
    clients.broadcast((client) => mayAnswer(client, entry), data)
  const place: RelayPlace<TClient> = { entries, clients, waiters, broadcast }

  /** Hands one response to its ask's machine; `undefined` when no ask is pending under `rpcId`. */
  const handOver = (
    client: TClient,
    clientId: string,
    rpcId: string,
    result: unknown,
  ): RelayResponse | undefined => {
    const entry = entries.get(rpcId)
    if (entry === undefined || entry.actor.getSnapshot().status !== 'active') return undefined
    const response = readResponse(mayAnswer(client, entry), entry, result, responderOf(client))
    entry.actor.send(responseEvent(clientId, response))
    return response
  }

  const answerFrame = (connection: Connection<TClient>, data: string): void => {
    const parsed = parseClientFrame(data)
    if (!parsed.ok) {
      sendTo(connection, frameText(parsed.error))
      return
    }
    const { rpcId, result } = parsed.frame
    const response = handOver(connection.client, connection.id, rpcId, result)
    if (response === undefined) sendTo(connection, receipt(rpcId, 'not-pending'))
    else if (response.kind === 'answer' || response.kind === 'cancel') clients.touch(connection)
  }

  const provider: UserQuestionProvider = {
    ask(request: ProviderRequest) {
      return new Promise<ProviderAnswer>((resolve, reject) => {
        const { askId: rpcId, signal } = request
        if (disposed) {
          reject(disposedError())
          return
        }
        if (signal.aborted) {
          reject(toUserQuestionError(signal.reason, 'ASK_ABORTED', 'the ask ended'))
          return
        }
        const entry = entryFor(request, `${rpcId}#${++serials}`)
        const { actor } = entry
        const tell = (event: Parameters<typeof actor.send>[0]) => {
          if (actor.getSnapshot().status === 'active') actor.send(event)
        }
        const ended = () => {
          const error = toUserQuestionError(signal.reason, 'ASK_ABORTED', 'the ask ended')
          tell({ type: 'ask.ended', error: errorData(error) })
          // The seam no longer waits on this settlement; it is settled for good form.
          reject(error)
        }
        actor.on('provider.settled', ({ response }) => {
          if (response.kind !== 'answer') reject(outcomeError(response.error))
          else if (response.by === undefined) resolve(response.answer)
          else resolve({ ...response.answer, by: response.by })
        })
        actor.on('receipt', (told) => deliverReceipt(place, rpcId, told))
        actor.subscribe({
          complete() {
            signal.removeEventListener('abort', ended)
            endEntry(place, entry)
          },
        })
        // The wait is registered before the question goes out, so an answer can never outrun it.
        entries.set(rpcId, entry)
        signal.addEventListener('abort', ended, { once: true })
        void request.settlement?.then((verdict) => {
          tell(settlementEvent(verdict))
          // A verdict that ends nothing (a counted vote) broadcasts nothing to flush its receipt.
          clients.flush()
        })
        actor.start()
        broadcast(entry, entry.requested)
      })
    },
  }

  const unregister = seam.registerProvider(provider)

  return {
    connect(client) {
      return clients.connect(client, disposed)
    },

    asksFor(client) {
      return [...entries.values()]
        .filter((entry) => mayAnswer(client, entry))
        .map((entry) => entry.frame)
    },

    respond(client, rpcId, result) {
      return new Promise<RelayReceipt>((resolve) => {
        const entry = entries.get(rpcId)
        // Waiting before handing over: a refusal is told at once.
        const waiterId = waiters.wait(entry?.serial ?? rpcId, resolve)
        if (handOver(client, waiterId, rpcId, result) === undefined) {
          waiters.deliver(waiterId, { reason: 'not-pending' })
        }
      })
    },

    pending() {
      return [...entries.values()].map(({ rpcId, sessionId, questions }) =>
        sessionId === undefined ? { rpcId, questions } : { rpcId, sessionId, questions },
      )
    },

    clientCount: () => clients.count(),

    dispose() {
      if (disposed) return
      disposed = true
      // Unregister first: the seam takes each ask back (with a grace or a human's wait, for the
      // next provider), and each ask's signal tells it so.
      unregister()
      // Every client hears how its asks ended before it is closed.
      clients.disposeAll()
    },
  }
}

/** What an entry's receipts and its end reach in the relay around it. */
interface RelayPlace<TClient extends RelayClient> {
  entries: Map<string, Entry>
  clients: ReturnType<typeof createRelayClients<TClient>>
  waiters: ReturnType<typeof createReceiptWaiters>
  broadcast(entry: Entry, data: string): void
}

/** A receipt an ask's machine gives: to the waiting request it names, or to the connected client. */
function deliverReceipt<TClient extends RelayClient>(
  { clients, waiters }: RelayPlace<TClient>,
  rpcId: string,
  { counted, ...told }: Extract<RelayAskEmitted, { type: 'receipt' }>,
): void {
  const ids = counted === undefined ? undefined : approvalIds(counted)
  if (waiters.deliver(told.clientId, { ...told, counted: ids })) return
  const connection = clients.byId(told.clientId)
  if (connection !== undefined) {
    clients.sendTo(connection, receipt(rpcId, told.reason, told.message, ids))
  }
}

/** One settle path of an entry: out of the table, its waiters released, every client told. */
function endEntry<TClient extends RelayClient>(
  { entries, clients, waiters, broadcast }: RelayPlace<TClient>,
  entry: Entry,
): void {
  // The seam may already have presented the ask again under the same id: that entry stays.
  const current = entries.get(entry.rpcId)
  if (current === entry) entries.delete(entry.rpcId)
  // A client paused for reading slowly may still be owed this question
  // (possibly megabytes of plan); only `resolved` would follow, so it is not sent.
  if (current === entry || current?.requested !== entry.requested) {
    clients.withdraw(entry.requested)
  }
  waiters.release(entry.serial)
  const { outcome } = entry.actor.getSnapshot().output as RelayAskOutput
  // An ask handed over, or still pending after a vote, did not end: it is shown again.
  // Nor did one the seam presents anew already, whatever ended its old presentation.
  if (outcome !== undefined && current === entry) broadcast(entry, resolvedFrame(entry, outcome))
}

/** How a provider's request fails once the relay is disposed. */
function disposedError(): UserQuestionError {
  return new UserQuestionError('the web relay was disposed', 'ASK_ABORTED', {
    details: { reason: AskEndReasons.RELAY_DISPOSED },
  })
}

/** The seam's verdict on the relay's own settlement, as its ask machine hears it. */
function settlementEvent(verdict: ProviderSettlement): RelayAskEvent {
  switch (verdict.status) {
    case 'accepted':
      return { type: 'settlement.accepted' }
    case 'counted':
      return { type: 'settlement.counted', approvals: verdict.approvals }
    case 'refused':
      return { type: 'settlement.refused', error: errorData(verdict.error) }
  }
}

/** The `question/resolved` frame every client that may see an ended ask is sent. */
function resolvedFrame({ rpcId, sessionId }: Entry, outcome: RelayOutcome): string {
  return frameText(
    sessionId === undefined
      ? { type: 'question/resolved', rpcId, outcome }
      : { type: 'question/resolved', rpcId, sessionId, outcome },
  )
}

/**
 * A client's response read at the relay's edge: who may answer, what the
 * frame says, whether the answer fits, and whether it is a second approval
 * by the same person (the seam would refuse it: the relay says so at once).
 * `by` is the connection's person; whatever the frame says of itself is not read.
 */
function readResponse(
  allowed: boolean,
  { questions, approvals }: Entry,
  result: unknown,
  by: Responder | undefined,
): RelayResponse {
  if (!allowed) return { kind: 'forbidden' }
  const interpreted = interpretResult(result)
  if (interpreted.kind === 'invalid') return interpreted
  if (interpreted.kind === 'cancel') return { kind: 'cancel', error: errorData(interpreted.error) }
  try {
    const answer = validateAnswer(questions, interpreted.value)
    if (hasApproved(approvals?.given, by) && isApproval(questions, answer)) {
      return { kind: 'already-voted' }
    }
    return by === undefined ? { kind: 'answer', answer } : { kind: 'answer', answer, by }
  } catch (error: unknown) {
    const { message, details } = toUserQuestionError(error)
    return details === undefined
      ? { kind: 'invalid', message }
      : { kind: 'invalid', message, details }
  }
}

/** A new ask's entry: its `relayAskMachine` and the `question/requested` frame every client is sent. */
function entryFor(request: ProviderRequest, serial: string): Entry {
  const { askId: rpcId, questions, deadline, answerers, approvals } = request
  const sessionId = request.agent?.id
  const actor = createActor(relayAskMachine, {
    input:
      sessionId === undefined
        ? { askId: rpcId, questions }
        : { askId: rpcId, sessionId, questions },
  })
  const frame: QuestionRequestedFrame = {
    type: 'question/requested',
    rpcId,
    ...(sessionId === undefined ? {} : { sessionId }),
    questions,
    ...(deadline === undefined ? {} : { deadline }),
    ...(approvals === undefined ? {} : { approvals: approvalIds(approvals) }),
  }
  return {
    rpcId,
    serial,
    sessionId,
    questions,
    answerers,
    approvals,
    actor,
    frame,
    requested: frameText(frame),
  }
}
