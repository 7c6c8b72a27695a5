import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { UserQuestionError, createUserQuestions } from '../../src/protocol/index.js'
import type {
  SeamTelemetry,
  TelemetryPresentation,
  TelemetrySettlement,
  UserQuestions,
} from '../../src/protocol/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { settle } from '../support/settle.js'
import { captureWarnings, withCode } from '../support/warnings.js'

/**
 * The seam's telemetry hooks (DESIGN §13, src/protocol/telemetry.ts): what
 * they are told, what a hook may hand back, and how a hook that throws is
 * reported (once) without touching the ask.
 */

const questions = [{ id: 'go', question: 'Deploy?', options: [{ label: 'Yes' }, { label: 'No' }] }]
const yes = { answers: [{ id: 'go', selected: ['Yes'] }] }

let warnings: Error[] = []
beforeEach(() => {
  warnings = captureWarnings(withCode('ASKSEAM_TELEMETRY_FAILED'))
})

const seams: UserQuestions[] = []
afterEach(async () => {
  await Promise.all(seams.splice(0).map((seam) => seam.close()))
})

/** A seam with `telemetry` and a provider; `answer` makes one ask and answers it. */
function observed(telemetry: SeamTelemetry) {
  const seam = createUserQuestions({ telemetry })
  seams.push(seam)
  const provider = createControllableProvider()
  seam.registerProvider(provider)
  let asked = 0
  return {
    seam,
    async answer(reply: object = yes) {
      const answer = seam.ask({ questions })
      ;(await provider.call(asked++)).resolve(reply)
      return answer
    },
  }
}

describe('§13 telemetry: what the hooks are told', () => {
  it('a settlement names no responders when nobody was named, and a presentation carries no trace context it was not given', async () => {
    const settlements: TelemetrySettlement[] = []
    const presentations: TelemetryPresentation[] = []
    const { answer } = observed({
      askStarted: () => ({ settled: (settlement) => settlements.push(settlement) }),
      presentationStarted: (presentation) => {
        presentations.push(presentation)
        return undefined
      },
    })
    await expect(answer()).resolves.toEqual(yes)
    await expect(answer({ ...yes, by: { id: 'ann', via: 'web' } })).resolves.toEqual(yes)
    expect(settlements.map((each) => Object.keys(each).sort())).toEqual([
      ['askId', 'outcome'],
      ['askId', 'outcome', 'responders'],
    ])
    expect(settlements[1]?.responders).toEqual([{ id: 'ann', via: 'web' }])
    // Exactly the ask's id: no `traceContext: undefined` beside it.
    expect(presentations).toHaveLength(2)
    for (const presentation of presentations) {
      expect(presentation).toStrictEqual({ askId: presentation.askId })
    }
  })
})

describe('§13 telemetry: hooks that hand back nothing, or throw', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
  ])(
    'hooks that hand back %s are no fault: no warning, and the ask is answered',
    async (_name, value) => {
      const { answer } = observed({
        askStarted: () => value as undefined,
        presentationStarted: () => value as undefined,
      })
      await expect(answer()).resolves.toEqual(yes)
      await settle()
      expect(warnings).toEqual([])
    },
  )

  it('a hook that throws is reported once, as an AskseamTelemetry warning naming the error', async () => {
    const { answer } = observed({
      askStarted: () => {
        throw new Error('collector unreachable')
      },
      presentationStarted: () => {
        throw new Error('collector unreachable')
      },
    })
    await expect(answer()).resolves.toEqual(yes)
    await expect(answer()).resolves.toEqual(yes)
    await settle()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.name).toBe('AskseamTelemetry')
    expect(warnings[0]?.message).toBe(
      'askseam: a telemetry hook threw; asks go on without it: collector unreachable',
    )
  })

  it('an error that cannot even be described is reported as unreadable', async () => {
    const unreadable = new Error('x')
    Object.defineProperty(unreadable, 'message', {
      get() {
        throw new Error('no message either')
      },
    })
    const { answer } = observed({
      askStarted: () => {
        throw unreadable
      },
      presentationStarted: () => undefined,
    })
    await expect(answer()).resolves.toEqual(yes)
    await settle()
    expect(warnings.map((warning) => warning.message)).toEqual([
      'askseam: a telemetry hook threw; asks go on without it: an unreadable error',
    ])
  })
})

describe('§13 telemetry: what cannot be telemetry is refused', () => {
  const message =
    'createUserQuestions: telemetry must have askStarted and presentationStarted functions (e.g. openTelemetry() from askseam/otel)'
  it.each<[string, unknown]>([
    ['null', null],
    ['a string', 'otel'],
    [
      'hooks on a function',
      Object.assign(() => undefined, {
        askStarted: () => undefined,
        presentationStarted: () => undefined,
      }),
    ],
    ['no askStarted', { presentationStarted: () => undefined }],
    ['no presentationStarted', { askStarted: () => undefined }],
  ])('%s is a TypeError that says what telemetry must have', (_name, telemetry) => {
    let thrown: unknown
    try {
      createUserQuestions({ telemetry: telemetry as unknown as SeamTelemetry })
    } catch (error: unknown) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(TypeError)
    expect(thrown).not.toBeInstanceOf(UserQuestionError)
    expect((thrown as Error).message).toBe(message)
  })
})
