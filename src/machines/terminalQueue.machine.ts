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
    isCurrent: ({ context }, ask: { askId: string }) => ask.askId === context.current,
    isWaiting: ({ context }, ask: { askId: string }) => context.waiting.includes(ask.askId),
  },
  delays: {
    callerTurn: 0,
  },
  actions: {
    enqueue: assign(({ context }, { askId }: { askId: string }) =>
      // An ask queued twice is shown once.
      context.waiting.includes(askId) || context.current === askId
        ? {}
        : { waiting: [...context.waiting, askId] },
    ),
    promoteNext: assign(({ context }) => ({
      current: context.waiting[0] ?? null,
      waiting: context.waiting.slice(1),
    })),
    clearCurrent: assign({ current: null }),
    forgetWithdrawn: assign(({ context }, { askId }: { askId: string }) => ({
      waiting: context.waiting.filter((id) => id !== askId),
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
    dropWithdrawn: emit((_, { askId }: { askId: string }) => ({
      type: 'ask.dropped' as const,
      askId,
      reason: 'withdrawn' as const,
    })),
    dropArrival: emit((_, dropped: { askId: string; reason: TerminalQueueDropReason }) => ({
      type: 'ask.dropped' as const,
      askId: dropped.askId,
      reason: dropped.reason,
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
        'ask.queued': { actions: { type: 'enqueue', params: ({ event }) => event } },
        'ask.withdrawn': {
          guard: { type: 'isWaiting', params: ({ event }) => event },
          actions: [
            { type: 'dropWithdrawn', params: ({ event }) => event },
            { type: 'forgetWithdrawn', params: ({ event }) => event },
          ],
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
              {
                guard: { type: 'isCurrent', params: ({ event }) => event },
                target: 'takingDown',
                actions: 'takeDownWithdrawn',
              },
              {
                guard: { type: 'isWaiting', params: ({ event }) => event },
                actions: [
                  { type: 'dropWithdrawn', params: ({ event }) => event },
                  { type: 'forgetWithdrawn', params: ({ event }) => event },
                ],
              },
            ],
            'prompt.ended': {
              guard: { type: 'isCurrent', params: ({ event }) => event },
              target: 'callerTurn',
              actions: 'clearCurrent',
            },
          },
        },
        takingDown: {
          on: {
            'prompt.ended': {
              guard: { type: 'isCurrent', params: ({ event }) => event },
              target: 'callerTurn',
              actions: 'clearCurrent',
            },
          },
        },
        callerTurn: {
          after: { callerTurn: 'idle' },
        },
      },
    },
    disposed: {
      on: {
        'ask.queued': {
          actions: {
            type: 'dropArrival',
            params: ({ event }) => ({ askId: event.askId, reason: 'provider-disposed' as const }),
          },
        },
        'prompt.ended': { actions: 'clearCurrent' },
      },
    },
    inputClosed: {
      on: {
        'ask.queued': {
          actions: {
            type: 'dropArrival',
            params: ({ event }) => ({ askId: event.askId, reason: 'input-closed' as const }),
          },
        },
        'prompt.ended': { actions: 'clearCurrent' },
        'provider.disposed': { target: 'disposed' },
      },
    },
  },
})
