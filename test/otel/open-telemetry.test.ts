import { SpanStatusCode, context, trace } from '@opentelemetry/api'
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  UserQuestionError,
  createMemoryStore,
  createUserQuestions,
} from '../../src/protocol/index.js'
import type {
  AskUserQuestionItem,
  UserQuestionErrorCode,
  UserQuestionsOptions,
} from '../../src/protocol/index.js'
import { openTelemetry } from '../../src/otel/index.js'
import { createControllableProvider, rejectionOf } from '../support/controllable-provider.js'
import { createMetrics, createTracing, useAsyncContext } from '../support/otel.js'
import { settle } from '../support/settle.js'

/** DESIGN §13: the human wait as OpenTelemetry spans and metrics. */

const question: AskUserQuestionItem = {
  id: 'go',
  question: 'Deploy now?',
  options: [{ label: 'Yes' }, { label: 'No' }],
}
const yes = { answers: [{ id: 'go', selected: ['Yes'] }] }
const plan: AskUserQuestionItem = {
  id: 'plan',
  question: 'Approve the plan?',
  detail: '1. migrate\n2. deploy',
  options: [{ label: 'Approve' }, { label: 'Revise' }],
  intent: { kind: 'plan-review', approve: 'Approve' },
}

let restoreContext: () => void
beforeAll(() => {
  restoreContext = useAsyncContext()
})
afterAll(() => restoreContext())

function observed(options: UserQuestionsOptions = {}) {
  const tracing = createTracing()
  const metrics = createMetrics()
  const seam = createUserQuestions({
    ...options,
    telemetry: openTelemetry({
      tracerProvider: tracing.provider,
      meterProvider: metrics.provider,
    }),
  })
  const provider = createControllableProvider()
  seam.registerProvider(provider)
  const named = (name: string) => tracing.spans().filter((span) => span.name === name)
  return { seam, provider, tracing, metrics, named }
}

const only = (spans: ReadableSpan[]): ReadableSpan => {
  expect(spans).toHaveLength(1)
  return spans[0] as ReadableSpan
}

describe('askseam/otel', () => {
  it('an answered ask is a span under the span active at ask(), its presentation a span linked to it', async () => {
    const { seam, provider, tracing, named } = observed()
    const parent = tracing.provider.getTracer('the agent').startSpan('tool call')
    const answer = context.with(trace.setSpan(context.active(), parent), () =>
      seam.ask({ key: 'call-1', questions: [question] }),
    )
    ;(await provider.call(0)).resolve(yes)
    await expect(answer).resolves.toEqual(yes)
    parent.end()

    const ask = only(named('askseam.ask'))
    expect(ask.parentSpanContext?.spanId).toBe(parent.spanContext().spanId)
    expect(ask.spanContext().traceId).toBe(parent.spanContext().traceId)
    expect(ask.attributes).toEqual({
      'askseam.ask.id': provider.last().request.askId,
      'askseam.ask.key': 'call-1',
      'askseam.questions': 1,
      'askseam.outcome': 'answered',
    })
    expect(ask.status.code).toBe(SpanStatusCode.UNSET)

    const present = only(named('askseam.present'))
    expect(present.parentSpanContext).toBeUndefined()
    expect(present.links.map(({ context: linked }) => linked.spanId)).toEqual([
      ask.spanContext().spanId,
    ])
    expect(present.links[0]?.context.traceId).toBe(ask.spanContext().traceId)
    expect(present.attributes).toEqual({
      'askseam.ask.id': provider.last().request.askId,
      'askseam.presentation.verdict': 'accepted',
    })
    await seam.close()
  })

  it('names who answered, and from where, once a plan has its approvals (DESIGN §12)', async () => {
    const { seam, provider, named } = observed()
    const approve = { answers: [{ id: 'plan', selected: ['Approve'] }] }
    const answer = seam.ask({ questions: [plan], approvals: 2 })
    ;(await provider.call(0)).resolve({ ...approve, by: { id: 'alice', via: 'web' } })
    ;(await provider.call(1)).resolve({ ...approve, by: { id: 'bob', via: 'terminal' } })
    await expect(answer).resolves.toEqual(approve)
    const ask = only(named('askseam.ask'))
    expect(ask.attributes['askseam.answered_by']).toEqual(['alice', 'bob'])
    expect(ask.attributes['askseam.answered_via']).toEqual(['web', 'terminal'])
    await seam.close()
  })

  it('names the intent a question declares', async () => {
    const { seam, provider, named } = observed()
    const answer = seam.ask({ questions: [plan, { id: 'why', question: 'Why?' }] })
    ;(await provider.call(0)).resolve({
      answers: [
        { id: 'plan', selected: ['Approve'] },
        { id: 'why', selected: [] },
      ],
    })
    await answer
    const ask = only(named('askseam.ask'))
    expect(ask.attributes['askseam.intent']).toBe('plan-review')
    expect(ask.attributes['askseam.questions']).toBe(2)
    expect(ask.attributes).not.toHaveProperty('askseam.ask.key')
    await seam.close()
  })

  const endings: Array<{
    outcome: string
    code: UserQuestionErrorCode
    status: SpanStatusCode
    verdict: string
    options?: UserQuestionsOptions
    end(call: Awaited<ReturnType<ReturnType<typeof createControllableProvider>['call']>>): void
  }> = [
    {
      outcome: 'cancelled',
      code: 'ASK_CANCELLED',
      status: SpanStatusCode.UNSET,
      verdict: 'accepted',
      end: (call) => call.reject(new UserQuestionError('dismissed', 'ASK_CANCELLED')),
    },
    {
      outcome: 'failed',
      code: 'PROVIDER_FAILED',
      status: SpanStatusCode.ERROR,
      verdict: 'accepted',
      end: (call) => call.reject(new Error('the UI crashed')),
    },
    {
      outcome: 'failed',
      code: 'BAD_ANSWER',
      status: SpanStatusCode.ERROR,
      verdict: 'accepted',
      end: (call) => call.resolve({ answers: [{ id: 'go', selected: ['Maybe'] }] }),
    },
    {
      outcome: 'timed-out',
      code: 'ASK_TIMEOUT',
      status: SpanStatusCode.UNSET,
      verdict: 'taken-down',
      options: { timeoutMs: 20 },
      end: () => undefined,
    },
  ]

  it.each(endings)(
    'an ask that ends $code is $outcome (status $status)',
    async ({ outcome, code, status, verdict, options, end }) => {
      const { seam, provider, named, metrics } = observed(options)
      const answer = seam.ask({ questions: [question] })
      end(await provider.call(0))
      await rejectionOf(answer, code)
      const ask = only(named('askseam.ask'))
      expect(ask.attributes['askseam.outcome']).toBe(outcome)
      expect(ask.attributes['error.type']).toBe(code)
      expect(ask.status.code).toBe(status)
      await settle()
      expect(only(named('askseam.present')).attributes['askseam.presentation.verdict']).toBe(
        verdict,
      )
      const collected = await metrics.collect()
      expect(
        collected.get('askseam.asks.settled')?.get(JSON.stringify({ 'askseam.outcome': outcome })),
      ).toBe(1)
      await seam.close()
    },
  )

  it('an ask whose caller aborts is aborted, and not an error', async () => {
    const { seam, provider, named } = observed()
    const controller = new AbortController()
    const answer = seam.ask({ questions: [question], signal: controller.signal })
    await provider.call(0)
    controller.abort()
    await rejectionOf(answer, 'ASK_ABORTED')
    const ask = only(named('askseam.ask'))
    expect(ask.attributes['askseam.outcome']).toBe('aborted')
    expect(ask.attributes['error.type']).toBe('ASK_ABORTED')
    expect(ask.status.code).toBe(SpanStatusCode.UNSET)
    await settle()
    expect(only(named('askseam.present')).attributes['askseam.presentation.verdict']).toBe(
      'taken-down',
    )
    await seam.close()
  })

  it('an ask refused before anyone saw it is failed, with no presentation', async () => {
    const tracing = createTracing()
    const seam = createUserQuestions({
      telemetry: openTelemetry({ tracerProvider: tracing.provider }),
    })
    await rejectionOf(seam.ask({ questions: [question] }), 'NO_PROVIDER')
    const ask = only(tracing.spans())
    expect(ask.name).toBe('askseam.ask')
    expect(ask.attributes['askseam.outcome']).toBe('failed')
    expect(ask.attributes['error.type']).toBe('NO_PROVIDER')
    // Decided now, not replayed from the store.
    expect(ask.attributes['askseam.replayed']).toBeUndefined()
    expect(ask.status.code).toBe(SpanStatusCode.ERROR)
    await seam.close()
  })

  it('counts pending asks, and settled asks and their durations by outcome', async () => {
    const { seam, provider, metrics } = observed()
    const first = seam.ask({ questions: [question] })
    const second = seam.ask({ questions: [question] })
    await provider.call(1)
    const pending = await metrics.collect()
    expect(pending.get('askseam.asks.pending')?.get('{}')).toBe(2)

    ;(await provider.call(0)).resolve(yes)
    await first
    provider.last().reject(new UserQuestionError('dismissed', 'ASK_CANCELLED'))
    await rejectionOf(second, 'ASK_CANCELLED')

    const after = await metrics.collect()
    expect(after.get('askseam.asks.pending')?.get('{}')).toBe(0)
    const answered = JSON.stringify({ 'askseam.outcome': 'answered' })
    const cancelled = JSON.stringify({ 'askseam.outcome': 'cancelled' })
    expect(after.get('askseam.asks.settled')?.get(answered)).toBe(1)
    expect(after.get('askseam.asks.settled')?.get(cancelled)).toBe(1)
    const duration = after.get('askseam.ask.duration')?.get(answered) as {
      count: number
      sum: number
    }
    expect(duration.count).toBe(1)
    expect(duration.sum).toBeGreaterThanOrEqual(0)
    await seam.close()
  })

  it('a key replayed from the store: its span names the held ask and is a replay, and nothing is counted twice', async () => {
    const { seam, provider, metrics, named } = observed()
    const first = seam.ask({ key: 'deploy-1', questions: [question] })
    const { askId } = (await provider.call(0)).request
    provider.last().resolve(yes)
    await expect(first).resolves.toEqual(yes)
    // The tool call runs again: the key's answer is replayed, and nobody is asked.
    await expect(seam.ask({ key: 'deploy-1', questions: [question] })).resolves.toEqual(yes)
    expect(provider.calls).toHaveLength(1)

    const [settled, replayed] = named('askseam.ask')
    expect(settled?.attributes['askseam.replayed']).toBeUndefined()
    expect(replayed?.attributes).toMatchObject({
      'askseam.ask.id': askId,
      'askseam.ask.key': 'deploy-1',
      'askseam.outcome': 'answered',
      'askseam.replayed': true,
    })
    const after = await metrics.collect()
    const answered = JSON.stringify({ 'askseam.outcome': 'answered' })
    expect(after.get('askseam.asks.settled')?.get(answered)).toBe(1)
    expect((after.get('askseam.ask.duration')?.get(answered) as { count: number }).count).toBe(1)
    expect(after.get('askseam.asks.pending')?.get('{}')).toBe(0)
    await seam.close()
  })

  it('links the presentation on another seam sharing the store to the asking span', async () => {
    const tracing = createTracing()
    const store = createMemoryStore()
    const telemetry = openTelemetry({ tracerProvider: tracing.provider })
    // It waits for the other seam's provider to show in the store's leases.
    const asking = createUserQuestions({ store, telemetry, waitForProviderMs: 10_000 })
    const presenting = createUserQuestions({ store, telemetry })
    const provider = createControllableProvider()
    presenting.registerProvider(provider)
    const answer = asking.ask({ questions: [question] })
    ;(await provider.call(0)).resolve(yes)
    await expect(answer).resolves.toEqual(yes)
    await settle()
    const spans = tracing.spans()
    const ask = only(spans.filter(({ name }) => name === 'askseam.ask'))
    const present = only(spans.filter(({ name }) => name === 'askseam.present'))
    expect(present.links.map(({ context: linked }) => linked.spanId)).toEqual([
      ask.spanContext().spanId,
    ])
    expect(present.attributes['askseam.ask.id']).toBe(ask.attributes['askseam.ask.id'])
    await asking.close()
    await presenting.close()
  })

  it('keeps the trace context a hook makes with the ask in the store, and drops a malformed one', async () => {
    const store = createMemoryStore()
    const contexts: unknown[] = [{ traceparent: 'made-by-the-hook' }, { traceparent: 42 }]
    const seen: Array<string | undefined> = []
    const seam = createUserQuestions({
      store,
      telemetry: {
        askStarted: () => ({ traceContext: contexts.shift() as never, settled: () => undefined }),
        presentationStarted: ({ traceContext }) => {
          seen.push(traceContext?.traceparent)
          return undefined
        },
      },
    })
    const provider = createControllableProvider()
    seam.registerProvider(provider)
    for (let index = 0; index < 2; index++) {
      const answer = seam.ask({ questions: [question] })
      const call = await provider.call(index)
      const record = await store.get(call.request.askId)
      expect(record?.traceContext).toEqual(
        index === 0 ? { traceparent: 'made-by-the-hook' } : undefined,
      )
      call.resolve(yes)
      await answer
    }
    expect(seen).toEqual(['made-by-the-hook', undefined])
    await seam.close()
  })

  it('refuses telemetry without its hooks, as a TypeError', () => {
    expect(() => createUserQuestions({ telemetry: {} as never })).toThrow(TypeError)
    expect(() =>
      createUserQuestions({ telemetry: { askStarted: () => undefined } as never }),
    ).toThrow(/askStarted and presentationStarted/)
  })
})
