import { assign, emit, enqueueActions, setup } from 'xstate'

/**
 * The terminal's queue of asks: which ask's prompt owns the keyboard, which
 * wait their turn (in arrival order), and what ends them. Only ids live here;
 * the requests and their promises stay with the provider, which performs what
 * the machine emits.
 */
export interface TerminalQueueContext {
  /** Asks waiting for the keyboard, oldest first. */
  waiting: string[]
  /** The ask whose prompt is up (or being taken down), if any. */
  current: string | null
}

/** Why an ask left the queue without being answered. */
export type TerminalQueueDropReason = 'withdrawn' | 'provider-disposed' | 'input-closed'

/** What the provider tells the queue. */
export type TerminalQueueEvent =
  /** A new ask arrived. */
  | { type: 'ask.queued'; askId: string }
  /** The ask's own signal aborted: caller abort, deadline, seam closed, hand-over. */
  | { type: 'ask.withdrawn'; askId: string }
  /** The prompt of `askId` is gone from the screen (answered, dismissed or taken down). */
  | { type: 'prompt.ended'; askId: string }
  | { type: 'provider.disposed' }
  /** The terminal's input ended: nobody can answer here any more. */
  | { type: 'input.closed' }

/** What the queue asks the provider to do. */
export type TerminalQueueEmitted =
  /** Put this ask's prompt on screen; it owns the keyboard until `prompt.ended`. */
  | { type: 'prompt.requested'; askId: string }
  /** Take the prompt on screen down. */
  | { type: 'prompt.takenDown'; askId: string; reason: TerminalQueueDropReason }
  /** Reject an ask that never reached the screen (or arrived after the end). */
  | { type: 'ask.dropped'; askId: string; reason: TerminalQueueDropReason }

function idOf(event: TerminalQueueEvent): string | undefined {
  return 'askId' in event ? event.askId : undefined
}

/**
 * One prompt owns the keyboard at a time; asks that arrive meanwhile queue in
 * order; an ask withdrawn while it waits is dropped without ever being shown,
 * one withdrawn while on screen is taken down, and disposal or a closed input
 * takes down the one on screen and drops every waiting one (and each later
 * ask). Between two prompts the asker gets a turn (`callerTurn`), so what it
 * prints about an answer lands above the next batch, not inside it.
 *
 * @example
 * ```ts
 * const queue = createActor(terminalQueueMachine).start()
 * queue.on('prompt.requested', ({ askId }) => show(askId))
 * queue.send({ type: 'ask.queued', askId: 'a1' })
 * ```
 */
export const terminalQueueMachine = /* @__PURE__ */ setup({
  types: {
    context: {} as TerminalQueueContext,
    events: {} as TerminalQueueEvent,
    emitted: {} as TerminalQueueEmitted,
  },
  guards: {
    hasWaiting: ({ context }) => context.waiting.length > 0,
    isCurrent: ({ context, event }) => idOf(event) !== undefined && idOf(event) === context.current,
    isWaiting: ({ context, event }) => {
      const id = idOf(event)
      return id !== undefined && context.waiting.includes(id)
    },
  },
  delays: {
    callerTurn: 0,
  },
  actions: {
    enqueue: assign(({ context, event }) => {
      const id = idOf(event)
      if (id === undefined || context.waiting.includes(id) || context.current === id) return {}
      return { waiting: [...context.waiting, id] }
    }),
    promoteNext: assign(({ context }) => ({
      current: context.waiting[0] ?? null,
      waiting: context.waiting.slice(1),
    })),
    clearCurrent: assign({ current: null }),
    forgetWithdrawn: assign(({ context, event }) => ({
      waiting: context.waiting.filter((id) => id !== idOf(event)),
    })),
    forgetAll: assign({ waiting: [] }),
    requestPrompt: emit(({ context }) => ({
      type: 'prompt.requested' as const,
      askId: context.current ?? '',
    })),
    takeDownWithdrawn: emit(({ context }) => ({
      type: 'prompt.takenDown' as const,
      askId: context.current ?? '',
      reason: 'withdrawn' as const,
    })),
    dropWithdrawn: emit(({ event }) => ({
      type: 'ask.dropped' as const,
      askId: idOf(event) ?? '',
      reason: 'withdrawn' as const,
    })),
    dropArrival: emit(({ event }, params: { reason: TerminalQueueDropReason }) => ({
      type: 'ask.dropped' as const,
      askId: idOf(event) ?? '',
      reason: params.reason,
    })),
    endEverything: enqueueActions(
      ({ context, enqueue }, params: { reason: TerminalQueueDropReason }) => {
        // One event per ask, in queue order, so the provider settles them in that order.
        for (const askId of context.waiting) {
          enqueue.emit({ type: 'ask.dropped', askId, reason: params.reason })
        }
        if (context.current !== null) {
          enqueue.emit({ type: 'prompt.takenDown', askId: context.current, reason: params.reason })
        }
      },
    ),
  },
}).createMachine({
  id: 'terminalQueue',
  context: { waiting: [], current: null },
  initial: 'open',
  states: {
    open: {
      initial: 'idle',
      on: {
        'ask.queued': { actions: 'enqueue' },
        'ask.withdrawn': {
          guard: 'isWaiting',
          actions: ['dropWithdrawn', 'forgetWithdrawn'],
        },
        'provider.disposed': {
          target: 'disposed',
          actions: [
            { type: 'endEverything', params: { reason: 'provider-disposed' } },
            'forgetAll',
          ],
        },
        'input.closed': {
          target: 'inputClosed',
          actions: [{ type: 'endEverything', params: { reason: 'input-closed' } }, 'forgetAll'],
        },
      },
      states: {
        idle: {
          always: { guard: 'hasWaiting', target: 'presenting' },
        },
        presenting: {
          entry: ['promoteNext', 'requestPrompt'],
          on: {
            'ask.withdrawn': [
              { guard: 'isCurrent', target: 'takingDown', actions: 'takeDownWithdrawn' },
              { guard: 'isWaiting', actions: ['dropWithdrawn', 'forgetWithdrawn'] },
            ],
            'prompt.ended': { guard: 'isCurrent', target: 'callerTurn', actions: 'clearCurrent' },
          },
        },
        takingDown: {
          on: {
            'prompt.ended': { guard: 'isCurrent', target: 'callerTurn', actions: 'clearCurrent' },
          },
        },
        callerTurn: {
          after: { callerTurn: 'idle' },
        },
      },
    },
    disposed: {
      on: {
        'ask.queued': { actions: { type: 'dropArrival', params: { reason: 'provider-disposed' } } },
        'prompt.ended': { actions: 'clearCurrent' },
      },
    },
    inputClosed: {
      on: {
        'ask.queued': { actions: { type: 'dropArrival', params: { reason: 'input-closed' } } },
        'prompt.ended': { actions: 'clearCurrent' },
        'provider.disposed': { target: 'disposed' },
      },
    },
  },
})
