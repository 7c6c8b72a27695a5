import { responseEvent } from '../../machines/index.js'
import type {
  RelayAskEmitted,
  RelayAskEvent,
  RelayAskOutput,
  RelayResponse,
} from '../../machines/index.js'
import {
  UserQuestionError,
  outcomeError,
  errorData,
  toUserQuestionError,
} from '../../protocol/index.js'
import type { ProviderRequest, UserQuestionProvider, UserQuestions } from '../../protocol/index.js'
import { AskEndReasons, handedOverOutcome } from '../../vocabulary/index.js'
import type { ProviderAnswer } from '../../vocabulary/index.js'
import { parseClientFrame } from './frames.js'
import { createRelayClients } from './relay-clients.js'
import type { Connection } from './relay-clients.js'
import {
  approvalIds,
  entryFor,
  frameText,
  readResponse,
  receipt,
  requestedFrame,
  resolvedFrame,
  settlementEvent,
} from './relay-entry.js'
import type { Entry, ProviderCall } from './relay-entry.js'
import { createReceiptWaiters } from './relay-waiters.js'
import type { Relay, RelayClient, RelayOptions, RelayReceipt } from './relay-types.js'

/**
 * Creates the host relay and registers it as `seam`'s provider. Each ask the
 * seam hands it is entered in a pending table keyed by `askId` (the wire's
 * `rpcId`) and then sent as `question/requested` to every connected client
 * allowed to see its session; a client that connects later is sent every
 * still-pending ask, same `rpcId`. The first valid `question/respond` settles
 * the ask; a response that comes after the ask ended gets a `not-pending`
 * receipt. On an ask still pending after a response (a vote counted, a
 * responder refused), another person's response that came meanwhile is held
 * and committed in turn once the seam presents the ask again (DESIGN §12).
 * Whatever ends an ask, every client that may see it is sent
 * `question/resolved` with how it ended, here or on another console.
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
        const call: ProviderCall = { resolve, reject }
        const shown = entries.get(rpcId)
        // Shown again after a vote or a refusal: the same ask, with what it held meanwhile.
        if (shown?.actor.getSnapshot().matches('awaitingPresentation') === true) {
          presentAgain(place, shown, request, call)
          return
        }
        const entry = entryFor(request, `${rpcId}#${++serials}`, call)
        const { actor } = entry
        actor.on('provider.settled', ({ response }) => {
          if (response.kind !== 'answer') entry.call.reject(outcomeError(response.error))
          else if (response.by === undefined) entry.call.resolve(response.answer)
          else entry.call.resolve({ ...response.answer, by: response.by })
        })
        actor.on('receipt', (told) => deliverReceipt(place, rpcId, told))
        follow(place, entry, request, call)
        actor.subscribe({
          next(snapshot) {
            // Presented anew while this entry still committed (a newer entry took the table): no
            // presentation is left for it, so it ends as handed over, its held responses not-pending.
            if (snapshot.matches('awaitingPresentation') && entries.get(rpcId) !== entry) {
              actor.send({ type: 'ask.ended', error: handedOverOutcome().error })
            }
          },
          complete() {
            for (const unfollow of entry.unfollow) unfollow()
            endEntry(place, entry)
          },
        })
        // The wait is registered before the question goes out, so an answer can never outrun it.
        entries.set(rpcId, entry)
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

/**
 * Follows one presentation's request: its signal ends the ask, its
 * settlement is the verdict on the response given while it is the current
 * call. A presentation's signal stays followed until the ask ends: once
 * the seam told it a vote was counted, it aborts if the ask ends
 * otherwise, even while the ask waits to be shown again.
 */
function follow<TClient extends RelayClient>(
  place: RelayPlace<TClient>,
  entry: Entry,
  request: ProviderRequest,
  call: ProviderCall,
): void {
  const { actor } = entry
  const { signal } = request
  const tell = (event: RelayAskEvent) => {
    if (actor.getSnapshot().status === 'active') actor.send(event)
  }
  const ended = () => {
    const error = toUserQuestionError(signal.reason, 'ASK_ABORTED', 'the ask ended')
    tell({ type: 'ask.ended', error: errorData(error) })
    // The seam no longer waits on this settlement; it is settled for good form.
    call.reject(error)
  }
  signal.addEventListener('abort', ended, { once: true })
  void request.settlement?.then((verdict) => {
    if (entry.call === call) tell(settlementEvent(verdict))
    // A verdict that ends nothing (a counted vote) broadcasts nothing to flush its receipt.
    place.clients.flush()
  })
  entry.unfollow.push(() => signal.removeEventListener('abort', ended))
}

/** The seam shows a waiting ask again: the new call is followed, every client sees the new count. */
function presentAgain<TClient extends RelayClient>(
  place: RelayPlace<TClient>,
  entry: Entry,
  request: ProviderRequest,
  call: ProviderCall,
): void {
  follow(place, entry, request, call)
  entry.call = call
  entry.approvals = request.approvals
  place.clients.withdraw(entry.requested)
  entry.frame = requestedFrame(request)
  entry.requested = frameText(entry.frame)
  // Hands the ask what it held meanwhile, before anything else can reach it.
  entry.actor.send({ type: 'ask.presented' })
  place.broadcast(entry, entry.requested)
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
  // An ask handed over did not end: another provider shows it.
  // Nor did one the seam presents anew already, whatever ended its old presentation.
  if (outcome !== undefined && current === entry) broadcast(entry, resolvedFrame(entry, outcome))
}

/** How a provider's request fails once the relay is disposed. */
function disposedError(): UserQuestionError {
  return new UserQuestionError('the web relay was disposed', 'ASK_ABORTED', {
    details: { reason: AskEndReasons.RELAY_DISPOSED },
  })
}
