import type { Attributes, MeterProvider, TracerProvider } from '@opentelemetry/api'
import { importPeer } from '../protocol/internal.js'
import type {
  AskOutcomeName,
  AskUserQuestionItem,
  SeamTelemetry,
  TelemetrySettlement,
  TraceContext,
} from '../protocol/index.js'
import { readSpanContext, writeTraceContext } from './trace-context.js'

const api = await importPeer(
  'askseam/otel',
  '@opentelemetry/api',
  () => import('@opentelemetry/api'),
)

/** Options of {@link openTelemetry}. */
export interface OpenTelemetryOptions {
  /**
   * Where the spans go.
   * @default the global tracer provider (`trace.getTracerProvider()`)
   */
  tracerProvider?: TracerProvider
  /**
   * Where the metrics go.
   * @default the global meter provider (`metrics.getMeterProvider()`)
   */
  meterProvider?: MeterProvider
}

/** The instrumentation scope of every span and instrument. */
const SCOPE = 'askseam'

/**
 * Outcomes that are a fault of the system, not a decision: the span's
 * status is ERROR for them. A human who cancels, a deadline that passes, a
 * caller that gives up or a seam that closes are the wait ending as it may.
 */
const FAILURES: ReadonlySet<AskOutcomeName> = new Set(['failed'])

/**
 * Telemetry for `createUserQuestions({ telemetry })` on OpenTelemetry
 * (DESIGN §13):
 *
 * - span `askseam.ask` in the process that asks, from admission to
 *   settlement, a child of the span active at `ask()`; attributes
 *   `askseam.ask.id`, `askseam.ask.key`, `askseam.questions` (how many),
 *   `askseam.intent` (the kinds of intent declared), `askseam.outcome`
 *   (`answered`, `cancelled`, `timed-out`, `aborted`, `failed`),
 *   `error.type` (the code) when rejected, and `askseam.answered_by` /
 *   `askseam.answered_via` when the responders are known. Status ERROR for
 *   `failed` only.
 * - span `askseam.present` in the process whose provider shows the ask, a
 *   root span linked to the asking span (whose context the seam keeps with
 *   the ask in the store, as W3C `traceparent`); attributes `askseam.ask.id`
 *   and `askseam.presentation.verdict` (`accepted`, `refused`, `taken-down`).
 * - metrics `askseam.asks.pending` (up-down counter), `askseam.ask.duration`
 *   (histogram, seconds, by `askseam.outcome`) and `askseam.asks.settled`
 *   (counter, by `askseam.outcome`).
 * - A keyed ask whose outcome the store already held is a replay (DESIGN
 *   §10): its span names the held ask and has `askseam.replayed: true`, and
 *   it adds nothing to `askseam.ask.duration` or `askseam.asks.settled`,
 *   which counted the ask when it settled.
 *
 * @example
 * ```ts
 * import { createUserQuestions } from 'askseam'
 * import { openTelemetry } from 'askseam/otel'
 *
 * // With an SDK registered globally, or pass its providers:
 * const seam = createUserQuestions({ telemetry: openTelemetry({ tracerProvider, meterProvider }) })
 * ```
 */
export function openTelemetry(options: OpenTelemetryOptions = {}): SeamTelemetry {
  const tracer = (options.tracerProvider ?? api.trace.getTracerProvider()).getTracer(SCOPE)
  const meter = (options.meterProvider ?? api.metrics.getMeterProvider()).getMeter(SCOPE)
  const pending = meter.createUpDownCounter('askseam.asks.pending', {
    description: 'Asks admitted by this process and not settled yet',
    unit: '{ask}',
  })
  const duration = meter.createHistogram('askseam.ask.duration', {
    description: 'How long an ask waited, from admission to settlement',
    unit: 's',
  })
  const settled = meter.createCounter('askseam.asks.settled', {
    description: 'Asks of this process that settled',
    unit: '{ask}',
  })
  const spanContext = {
    isValid: api.isSpanContextValid,
    traceState: api.createTraceState,
  }

  return {
    askStarted(ask) {
      const startedAt = performance.now()
      const span = tracer.startSpan(
        'askseam.ask',
        { kind: api.SpanKind.INTERNAL, attributes: askAttributes(ask) },
        api.context.active(),
      )
      // From here on a throw must not lose the span: the handle is returned
      // whatever throws, its settle ends the span whatever throws, and the
      // first failure is thrown from there for the seam to report.
      const failures = new Failures()
      const counted = failures.attempt(() => pending.add(1))
      let traceContext: TraceContext | undefined
      failures.attempt(() => {
        traceContext = writeTraceContext(span.spanContext(), api.isSpanContextValid)
      })
      return {
        ...(traceContext === undefined ? {} : { traceContext }),
        settled(settlement) {
          const outcome = { 'askseam.outcome': settlement.outcome }
          if (counted) failures.attempt(() => pending.add(-1))
          // A replay settled nothing now: it was counted when its ask settled.
          if (settlement.replayed !== true) {
            failures.attempt(() => duration.record((performance.now() - startedAt) / 1000, outcome))
            failures.attempt(() => settled.add(1, outcome))
          }
          failures.attempt(() => {
            span.setAttributes({ ...settlementAttributes(settlement), ...outcome })
            if (FAILURES.has(settlement.outcome)) {
              span.setStatus({
                code: api.SpanStatusCode.ERROR,
                message: settlement.errorCode ?? '',
              })
            }
          })
          failures.attempt(() => span.end())
          failures.rethrow()
        },
      }
    },

    presentationStarted(presentation) {
      const asking = readSpanContext(presentation.traceContext, spanContext)
      const span = tracer.startSpan(
        'askseam.present',
        {
          kind: api.SpanKind.INTERNAL,
          root: true,
          attributes: { 'askseam.ask.id': presentation.askId },
          ...(asking === undefined ? {} : { links: [{ context: asking }] }),
        },
        api.context.active(),
      )
      return {
        ended(verdict) {
          try {
            span.setAttribute('askseam.presentation.verdict', verdict)
          } finally {
            span.end()
          }
        },
      }
    },
  }
}

/**
 * The throws of one ask's instruments, kept so that each step still runs
 * (a meter that throws must not cost the span its end) and the first is
 * thrown once the work is done.
 */
class Failures {
  private first: { error: unknown } | undefined

  /** Runs `work`; `false` when it threw (the throw kept, if it is the first). */
  attempt(work: () => void): boolean {
    try {
      work()
      return true
    } catch (error: unknown) {
      this.first ??= { error }
      return false
    }
  }

  /** Throws the first failure, once. */
  rethrow(): void {
    const failure = this.first
    this.first = undefined
    if (failure !== undefined) throw failure.error
  }
}

function askAttributes(ask: {
  askId: string
  key?: string
  questions: readonly AskUserQuestionItem[]
}): Attributes {
  const attributes: Attributes = {
    'askseam.ask.id': ask.askId,
    'askseam.questions': ask.questions.length,
  }
  if (ask.key !== undefined) attributes['askseam.ask.key'] = ask.key
  const intents = [...new Set(ask.questions.flatMap(({ intent }) => intent?.kind ?? []))]
  if (intents.length > 0) attributes['askseam.intent'] = intents.join(',')
  return attributes
}

function settlementAttributes(settlement: TelemetrySettlement): Attributes {
  // A keyed ask that attached to one held in the store settles under that one's id.
  const attributes: Attributes = { 'askseam.ask.id': settlement.askId }
  if (settlement.errorCode !== undefined) attributes['error.type'] = settlement.errorCode
  if (settlement.replayed === true) attributes['askseam.replayed'] = true
  const responders = settlement.responders ?? []
  if (responders.length > 0) {
    attributes['askseam.answered_by'] = responders.map(({ id }) => id)
    attributes['askseam.answered_via'] = [...new Set(responders.map(({ via }) => via))]
  }
  return attributes
}
