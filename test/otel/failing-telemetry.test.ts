/**
 * DESIGN §13: telemetry never breaks an ask. A tracer, a meter or a hook
 * that throws is caught and reported once, the ask goes on, and no span
 * askseam started is left open.
 */
import type { Tracer, TracerProvider } from '@opentelemetry/api'
import { describe, expect, it } from 'vitest'
import { createUserQuestions } from '../../src/protocol/index.js'
import type { AskUserQuestionItem } from '../../src/protocol/index.js'
import { openTelemetry } from '../../src/otel/index.js'
import { createControllableProvider } from '../support/controllable-provider.js'
import { createMetrics, createTracing } from '../support/otel.js'
import { settle } from '../support/settle.js'
import { captureWarnings, withCode } from '../support/warnings.js'

const question: AskUserQuestionItem = {
  id: 'go',
  question: 'Deploy now?',
  options: [{ label: 'Yes' }, { label: 'No' }],
}
const yes = { answers: [{ id: 'go', selected: ['Yes'] }] }

type Telemetry = NonNullable<Parameters<typeof openTelemetry>[0]>
type MeterProvider = NonNullable<Telemetry['meterProvider']>

/** A seam on `openTelemetry(options)` whose provider answers two asks, each resolving to `yes`. */
async function answerTwice(options: Telemetry) {
  const seam = createUserQuestions({ telemetry: openTelemetry(options) })
  const provider = createControllableProvider()
  seam.registerProvider(provider)
  for (let index = 0; index < 2; index++) {
    const answer = seam.ask({ questions: [question] })
    ;(await provider.call(index)).resolve(yes)
    await expect(answer).resolves.toEqual(yes)
  }
  return seam
}

describe('askseam/otel when telemetry fails', () => {
  it('a tracer and a meter that throw break no ask, and are reported once', async () => {
    const throwing = () => {
      throw new Error('exporter down')
    }
    const tracerProvider: TracerProvider = {
      getTracer: () => ({ startSpan: throwing, startActiveSpan: throwing }) as unknown as Tracer,
    }
    const metrics = createMetrics()
    const meterProvider = {
      getMeter: () => {
        const meter = metrics.provider.getMeter('throwing')
        return {
          ...meter,
          createUpDownCounter: () => ({ add: throwing }),
          createHistogram: () => ({ record: throwing }),
          createCounter: () => ({ add: throwing }),
        }
      },
    } as unknown as MeterProvider
    const warnings = captureWarnings(withCode('ASKSEAM_TELEMETRY_FAILED'))
    const seam = await answerTwice({ tracerProvider, meterProvider })
    await settle()
    expect(warnings).toHaveLength(1)
    expect(warnings[0]?.message).toMatch(/exporter down/)
    await seam.close()
  })

  // A meter that threw after the span started lost the handle, and the span was never ended.
  it.each(['askseam.asks.pending', 'askseam.ask.duration', 'askseam.asks.settled'])(
    'an instrument that throws (%s) leaves no span open, and is reported once',
    async (broken) => {
      const tracing = createTracing()
      const metrics = createMetrics()
      const meter = metrics.provider.getMeter('askseam')
      const throwing = () => {
        throw new Error(`meter down: ${broken}`)
      }
      const instrument = <T extends object>(name: string, real: T): T =>
        name === broken ? ({ add: throwing, record: throwing } as unknown as T) : real
      // The SDK's own meter, but for the one instrument that throws.
      const meterProvider = {
        getMeter: () => ({
          ...meter,
          createUpDownCounter: (name: string, options?: object) =>
            instrument(name, meter.createUpDownCounter(name, options)),
          createHistogram: (name: string, options?: object) =>
            instrument(name, meter.createHistogram(name, options)),
          createCounter: (name: string, options?: object) =>
            instrument(name, meter.createCounter(name, options)),
        }),
      } as unknown as MeterProvider
      const warnings = captureWarnings(withCode('ASKSEAM_TELEMETRY_FAILED'))
      const seam = await answerTwice({ tracerProvider: tracing.provider, meterProvider })
      await seam.close()
      await settle()
      const asks = tracing.spans().filter(({ name }) => name === 'askseam.ask')
      expect(asks.map(({ attributes }) => attributes['askseam.outcome'])).toEqual([
        'answered',
        'answered',
      ])
      expect(tracing.spans().filter(({ name }) => name === 'askseam.present')).toHaveLength(2)
      expect(warnings.map(({ message }) => message)).toEqual([
        expect.stringContaining(`meter down: ${broken}`),
      ])
      // The instruments that work still count.
      const collected = await metrics.collect()
      if (broken !== 'askseam.asks.settled') {
        expect(
          collected
            .get('askseam.asks.settled')
            ?.get(JSON.stringify({ 'askseam.outcome': 'answered' })),
        ).toBe(2)
      }
      if (broken !== 'askseam.asks.pending') {
        expect(collected.get('askseam.asks.pending')?.get('{}')).toBe(0)
      }
    },
  )

  it('hooks that throw, or hand back nonsense, break no ask', async () => {
    const seam = createUserQuestions({
      telemetry: {
        askStarted: () => ({
          traceContext: { traceparent: 42 } as never,
          settled() {
            throw new Error('settled threw')
          },
        }),
        presentationStarted() {
          throw new Error('presentation threw')
        },
      },
    })
    const warnings = captureWarnings(withCode('ASKSEAM_TELEMETRY_FAILED'))
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    const answer = seam.ask({ questions: [question] })
    ;(await provider.call(0)).resolve(yes)
    await expect(answer).resolves.toEqual(yes)
    await seam.close()
    await settle()
    expect(warnings.map(({ message }) => message)).toEqual([
      expect.stringMatching(/presentation threw/),
    ])
  })
})
