import { describe, expect, it } from 'vitest'
import { TestModel } from 'xstate/graph'
import { getNextSnapshot } from 'xstate'
import type { ActorLogic, SnapshotFrom } from 'xstate'
import { seamMachine } from '../../src/machines/index.js'
import type { SeamEvent } from '../../src/machines/index.js'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type {
  ProviderRequest,
  UserQuestionProvider,
  UserQuestions,
} from '../../src/protocol/index.js'

/**
 * Paths generated from seamMachine drive createUserQuestions: registrations,
 * current and stale disposers, duplicate registrations and close. After every
 * step a probe ask shows who (if anyone) holds the slot.
 */

type SeamSnapshot = SnapshotFrom<typeof seamMachine>

/**
 * Every event, whatever the state: three registrations (registering one number again is a new
 * registration under it, whose disposer replaces the old one's), a disposer for each, and close.
 * A disposer of a number the slot does not hold is a stale one, or one called twice.
 */
const registrations = [1, 2, 3]
const events: SeamEvent[] = [
  { type: 'seam.closed' },
  ...registrations.map((registration) => ({ type: 'provider.registered' as const, registration })),
  ...registrations.map((registration) => ({ type: 'provider.disposed' as const, registration })),
]

const serializeState = (snapshot: SeamSnapshot) =>
  JSON.stringify([snapshot.value, snapshot.context.registration ?? 0])
const serializeEvent = (event: SeamEvent) =>
  JSON.stringify([event.type, 'registration' in event ? event.registration : null])

class World {
  seam: UserQuestions = createUserQuestions()
  /** Disposers by model registration number; `seen` records which provider each probe reached. */
  disposers = new Map<number, () => void>()
  seen: string[] = []
  lastError: unknown

  provider(name: string): UserQuestionProvider {
    return {
      ask: (request: ProviderRequest) => {
        this.seen.push(name)
        return Promise.resolve({
          answers: request.questions.map(({ id }) => ({ id, selected: [] })),
        })
      },
    }
  }

  async perform(event: SeamEvent) {
    this.lastError = undefined
    if (event.type === 'provider.registered') {
      try {
        this.disposers.set(
          event.registration,
          this.seam.registerProvider(this.provider(`p${event.registration}`)),
        )
      } catch (error: unknown) {
        this.lastError = error
      }
    } else if (event.type === 'provider.disposed') {
      this.disposers.get(event.registration)?.()
    } else {
      await this.seam.close()
    }
  }

  async check(
    snapshot: SeamSnapshot,
    event: SeamEvent | undefined,
    before: SeamSnapshot | undefined,
  ) {
    if (event?.type === 'provider.registered') {
      if (before?.matches('vacant')) expect(this.lastError).toBeUndefined()
      else {
        expect(this.lastError).toBeInstanceOf(UserQuestionError)
        expect((this.lastError as UserQuestionError).code).toBe(
          before?.matches('closed') ? 'SEAM_CLOSED' : 'DUPLICATE_PROVIDER',
        )
      }
    }
    this.seen = []
    const probe = this.seam.ask({ questions: [{ id: 'probe', question: 'Still there?' }] })
    const outcome = await probe.then(
      () => 'answered',
      (error: unknown) => (error as UserQuestionError).code,
    )
    if (snapshot.matches('active')) {
      expect(outcome).toBe('answered')
      expect(this.seen).toEqual([`p${snapshot.context.registration}`])
    } else if (snapshot.matches('vacant')) {
      expect(outcome).toBe('NO_PROVIDER')
      expect(this.seen).toEqual([])
    } else {
      expect(outcome).toBe('SEAM_CLOSED')
      expect(() => this.seam.registerProvider(this.provider('late'))).toThrow(
        expect.objectContaining({ code: 'SEAM_CLOSED' }),
      )
    }
  }
}

describe('seamMachine paths drive the seam', () => {
  // TestModel types its logic as emitting nothing; seamMachine emits events, which TestModel
  // never reads, so the machine is handed over as the logic TestModel expects.
  const logic = seamMachine as unknown as ActorLogic<SeamSnapshot, SeamEvent>
  const model = new TestModel(logic, { events, serializeState, serializeEvent })
  // Generated paths reach every state; every state along them is then
  // extended by each event it accepts, so self-loops (a duplicate
  // registration, a stale disposer, a second dispose) are driven too.
  type Step = { event: SeamEvent | { type: string }; state: SeamSnapshot }
  const unique = new Map<string, Step[]>()
  for (const path of [...model.getShortestPaths(), ...model.getSimplePaths()]) {
    path.steps.forEach((_, index) => {
      const prefix = path.steps.slice(0, index + 1) as Step[]
      const last = prefix.at(-1)!.state
      for (const event of events) {
        const steps = [...prefix, { event, state: getNextSnapshot(seamMachine, last, event) }]
        unique.set(steps.map(({ event }) => serializeEvent(event as SeamEvent)).join(' '), steps)
      }
    })
  }
  const paths = [...unique.values()]

  it(`${paths.length} paths`, async () => {
    const states = new Set<string>()
    const transitions = new Set<string>()
    for (const path of paths) {
      const world = new World()
      let previous: SeamSnapshot | undefined
      for (const step of path) {
        if (previous !== undefined) await world.perform(step.event as SeamEvent)
        await world.check(
          step.state,
          previous === undefined ? undefined : (step.event as SeamEvent),
          previous,
        )
        states.add(JSON.stringify(step.state.value))
        if (previous !== undefined) {
          const moved = JSON.stringify(previous.value) !== JSON.stringify(step.state.value)
          transitions.add(
            `${JSON.stringify(previous.value)} ${step.event.type} ${moved ? 'moves' : 'stays'}`,
          )
        }
        previous = step.state
      }
    }
    console.info(
      `seamMachine model: ${paths.length} paths, ${states.size}/3 states, ${transitions.size} (state, event, effect) steps`,
    )
    expect(states.size).toBe(3)
    // Disposing in `vacant` is a disposer called twice; a dispose that stays in
    // `active` is a stale disposer; a register that stays is a duplicate.
    const expectedSteps = [
      '"active" provider.disposed moves',
      '"active" provider.disposed stays',
      '"active" provider.registered stays',
      '"active" seam.closed moves',
      '"closed" provider.disposed stays',
      '"closed" provider.registered stays',
      '"closed" seam.closed stays',
      '"vacant" provider.disposed stays',
      '"vacant" provider.registered moves',
      '"vacant" seam.closed moves',
    ]
    expect([...transitions].sort()).toEqual(expectedSteps)
  })
})
