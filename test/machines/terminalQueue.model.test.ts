/**
 * Model-based test of the terminal's queue of asks: paths generated from
 * terminalQueueMachine with xstate/graph are replayed against the REAL
 * terminal provider (createTerminalProvider over streams posing as a TTY):
 * simultaneous asks, answers typed on the keyboard, caller aborts, a closed
 * input and disposal. After every step that the provider reaches by itself,
 * the provider must agree with the machine on which ask is on screen, how
 * many are up or waiting, and how each settled one ended.
 */
import { PassThrough } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { getNextSnapshot } from 'xstate'
import type { SnapshotFrom } from 'xstate'
import { getShortestPaths } from 'xstate/graph'
import { terminalQueueMachine } from '../../src/machines/index.js'
import type { TerminalQueueEvent } from '../../src/machines/index.js'
import { UserQuestionError } from '../../src/protocol/index.js'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import { createTerminalProvider } from '../../src/providers/terminal/index.js'

type QueueSnapshot = SnapshotFrom<typeof terminalQueueMachine>

const IDS = ['a', 'b', 'c'] as const
const CALLER_TURN = 'xstate.after.callerTurn.terminalQueue.open.callerTurn'

const questionOf = (id: string): AskUserQuestionItem[] => [
  { id, question: `Question ${id}?`, options: [{ label: 'Yes' }] },
]

function present(snapshot: QueueSnapshot): string[] {
  const { waiting, current } = snapshot.context
  return current === null ? [...waiting] : [current, ...waiting]
}

/**
 * The events a test can cause in each state. The provider itself sends
 * `prompt.ended` after a take-down and waits out `callerTurn`, so in those
 * in-between states only that automatic event is walked.
 */
function eventsFor(snapshot: QueueSnapshot): TerminalQueueEvent[] {
  const { current } = snapshot.context
  const inFlight = present(snapshot)
  if (snapshot.matches({ open: 'callerTurn' })) {
    return [{ type: CALLER_TURN } as unknown as TerminalQueueEvent]
  }
  const tearingDown =
    snapshot.matches({ open: 'takingDown' }) ||
    ((snapshot.matches('disposed') || snapshot.matches('inputClosed')) && current !== null)
  if (tearingDown && current !== null) return [{ type: 'prompt.ended', askId: current }]
  const events: TerminalQueueEvent[] = []
  for (const id of IDS) {
    if (!inFlight.includes(id)) events.push({ type: 'ask.queued', askId: id })
    else events.push({ type: 'ask.withdrawn', askId: id })
  }
  if (snapshot.matches({ open: 'presenting' }) && current !== null) {
    events.push({ type: 'prompt.ended', askId: current })
  }
  if (snapshot.matches('open')) events.push({ type: 'input.closed' })
  if (!snapshot.matches('disposed')) events.push({ type: 'provider.disposed' })
  return events
}

interface Step {
  event: TerminalQueueEvent
  state: QueueSnapshot
}

const isBetween = (snapshot: QueueSnapshot) =>
  snapshot.matches({ open: 'callerTurn' }) ||
  snapshot.matches({ open: 'takingDown' }) ||
  (snapshot.context.current !== null && !snapshot.matches({ open: 'presenting' }))

/**
 * Every transition, not just every state: the shortest path to each state,
 * followed by each event a test can cause there (and the steps the provider
 * then takes by itself).
 */
function transitionPaths(): Step[][] {
  const shortest = getShortestPaths(terminalQueueMachine, {
    events: eventsFor,
    serializeState: (snapshot) =>
      JSON.stringify({ value: snapshot.value, context: snapshot.context }),
  })
  const found: Step[][] = []
  for (const path of shortest) {
    const prefix = path.steps.map(({ event, state }) => ({ event, state }))
    if (isBetween(path.state)) continue
    for (const event of eventsFor(path.state)) {
      const steps = [...prefix]
      let state = getNextSnapshot(terminalQueueMachine, path.state, event)
      steps.push({ event, state })
      while (isBetween(state)) {
        const [automatic] = eventsFor(state)
        if (automatic === undefined) break
        state = getNextSnapshot(terminalQueueMachine, state, automatic)
        steps.push({ event: automatic, state })
      }
      found.push(steps)
    }
  }
  return found
}

const paths = transitionPaths()

function fakeTerminal() {
  const input = Object.assign(new PassThrough(), {
    isTTY: true,
    isRaw: false,
    setRawMode(mode: boolean) {
      input.isRaw = mode
      return input
    },
  })
  const output = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 })
  let screen = ''
  output.on('data', (chunk: Buffer) => (screen += chunk.toString()))
  return { input, output, screen: () => screen }
}

type Outcome =
  { status: 'pending' } | { status: 'answered' } | { status: 'rejected'; reason: unknown }

/** Lets the provider do what it does by itself: settle, take down, wait its caller's turn. */
const settle = async () => {
  for (let turn = 0; turn < 3; turn += 1) await new Promise((resolve) => setTimeout(resolve, 2))
}

describe('the terminal provider follows terminalQueueMachine', () => {
  it('has paths through every kind of step', () => {
    const kinds = new Set(paths.flatMap((path) => path.map((step) => step.event.type)))
    for (const kind of [
      'ask.queued',
      'ask.withdrawn',
      'prompt.ended',
      'provider.disposed',
      'input.closed',
    ]) {
      expect(kinds).toContain(kind)
    }
    expect(paths.length).toBeGreaterThan(20)
  })

  it.each(
    paths.map(
      (path) =>
        [
          path
            .map((step) =>
              (step.event.type as string) === CALLER_TURN
                ? 'turn'
                : `${step.event.type}${'askId' in step.event ? `(${step.event.askId})` : ''}`,
            )
            .slice(1)
            .join(' → ') || '(initial)',
          path,
        ] as const,
    ),
  )('%s', async (_name, path) => {
    const { input, output, screen } = fakeTerminal()
    const terminal = createTerminalProvider({ input, output, color: false, summary: false })
    const controllers = new Map<string, AbortController>()
    const outcomes = new Map<string, Outcome>()
    const expected = new Map<string, Outcome>()
    const cause = new Map<string, string>()

    const [first, ...steps] = path
    let before: QueueSnapshot = first!.state
    for (const { event, state } of steps) {
      switch (event.type) {
        case 'ask.queued': {
          const controller = new AbortController()
          controllers.set(event.askId, controller)
          outcomes.set(event.askId, { status: 'pending' })
          expected.set(event.askId, { status: 'pending' })
          const id = event.askId
          terminal
            .ask({ askId: `seam-${id}`, questions: questionOf(id), signal: controller.signal })
            .then(
              () => outcomes.set(id, { status: 'answered' }),
              (error: unknown) =>
                outcomes.set(id, {
                  status: 'rejected',
                  reason: (error as UserQuestionError).details?.reason,
                }),
            )
          if (before.matches('disposed')) cause.set(id, 'provider-disposed')
          if (before.matches('inputClosed')) cause.set(id, 'input-closed')
          break
        }
        case 'ask.withdrawn':
          cause.set(event.askId, 'caller-aborted')
          controllers.get(event.askId)?.abort(
            new UserQuestionError('the caller aborted the ask', 'ASK_ABORTED', {
              details: { reason: 'caller-aborted' },
            }),
          )
          break
        case 'prompt.ended':
          if (before.matches({ open: 'presenting' })) {
            cause.set(event.askId, 'answered')
            input.write('1')
          }
          break
        case 'provider.disposed':
          for (const id of present(before)) if (!cause.has(id)) cause.set(id, 'provider-disposed')
          terminal.dispose()
          break
        case 'input.closed':
          for (const id of present(before)) if (!cause.has(id)) cause.set(id, 'input-closed')
          input.end()
          break
        default:
          break
      }
      // Whatever was in flight before and is not now has settled, the way its cause says.
      const now = present(state)
      for (const id of [
        ...present(before),
        ...(event.type === 'ask.queued' ? [event.askId] : []),
      ]) {
        if (now.includes(id)) continue
        const why = cause.get(id)
        expected.set(
          id,
          why === 'answered' ? { status: 'answered' } : { status: 'rejected', reason: why },
        )
        cause.delete(id)
      }
      before = state
      const stable = !(
        state.matches({ open: 'callerTurn' }) ||
        state.matches({ open: 'takingDown' }) ||
        (state.context.current !== null && !state.matches({ open: 'presenting' }))
      )
      if (!stable) continue
      await settle()
      expect(Object.fromEntries(outcomes)).toEqual(Object.fromEntries(expected))
      expect(terminal.waiting).toBe(present(state).length)
      const current = state.context.current
      if (current !== null && state.matches({ open: 'presenting' })) {
        // The last question drawn is the current ask's.
        const shown = screen()
        const latest = IDS.map((id) => ({ id, at: shown.lastIndexOf(`Question ${id}?`) })).sort(
          (x, y) => y.at - x.at,
        )[0]
        expect(latest?.id).toBe(current)
        expect(input.isRaw).toBe(true)
      } else {
        // No prompt: the terminal is back in line mode, bracketed paste off, cursor shown.
        expect(input.isRaw).toBe(false)
        if (screen().includes('\u001b[?2004h'))
          expect(screen().endsWith('\u001b[?2004l\u001b[?25h')).toBe(true)
      }
    }
    terminal.dispose()
    await settle()
  })
})
