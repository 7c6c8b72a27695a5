import { AsyncLocalStorage } from 'node:async_hooks'
import { context as contextApi, ROOT_CONTEXT } from '@opentelemetry/api'
import type { Context, ContextManager } from '@opentelemetry/api'
import { MeterProvider, MetricReader } from '@opentelemetry/sdk-metrics'
import type { DataPoint, Histogram } from '@opentelemetry/sdk-metrics'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base'

/*
 * OpenTelemetry's own SDK with in-memory exporters, as an application would
 * wire it, for the tests of askseam/otel.
 */

/** A tracer provider whose finished spans a test reads; `onEnd` hears each as it ends. */
export function createTracing(onEnd?: (span: ReadableSpan) => void): {
  provider: BasicTracerProvider
  spans(): ReadableSpan[]
} {
  const exporter = new InMemorySpanExporter()
  const processors: SpanProcessor[] = [new SimpleSpanProcessor(exporter)]
  if (onEnd !== undefined) {
    processors.push({
      onStart: () => undefined,
      onEnd,
      forceFlush: async () => undefined,
      shutdown: async () => undefined,
    })
  }
  const provider = new BasicTracerProvider({ spanProcessors: processors })
  return { provider, spans: () => exporter.getFinishedSpans() }
}

/** A finished span as plain JSON: what a process of a test prints of it. */
export function spanJson(span: ReadableSpan) {
  return {
    name: span.name,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    links: span.links.map(({ context }) => ({ traceId: context.traceId, spanId: context.spanId })),
    attributes: span.attributes,
  }
}

/** A reader a test collects from when it wants, not on a timer. */
class CollectingReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

/** One instrument's data points, keyed by their attributes as JSON (`{}` for none). */
export type Points = Map<string, DataPoint<number | Histogram>['value']>

/** A meter provider, and a way to collect what its instruments hold now (cumulative). */
export function createMetrics(): {
  provider: MeterProvider
  collect(): Promise<Map<string, Points>>
} {
  const reader = new CollectingReader()
  const provider = new MeterProvider({ readers: [reader] })
  return {
    provider,
    async collect() {
      const { resourceMetrics } = await reader.collect()
      const byName = new Map<string, Points>()
      for (const scope of resourceMetrics.scopeMetrics) {
        for (const metric of scope.metrics) {
          const points: Points = new Map()
          for (const point of metric.dataPoints as DataPoint<number | Histogram>[]) {
            points.set(JSON.stringify(point.attributes), point.value)
          }
          byName.set(metric.descriptor.name, points)
        }
      }
      return byName
    },
  }
}

/** The context manager an SDK for Node installs: the active span follows async work. */
class AsyncContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>()
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(context, () => fn.call(thisArg, ...args))
  }
  bind<T>(context: Context, target: T): T {
    if (typeof target !== 'function') return target
    const run = (...args: unknown[]) =>
      this.with(context, () => (target as (...a: unknown[]) => unknown)(...args))
    return run as T
  }
  enable(): this {
    return this
  }
  disable(): this {
    this.storage.disable()
    return this
  }
}

/** Installs the async context manager globally; returns its removal. */
export function useAsyncContext(): () => void {
  contextApi.setGlobalContextManager(new AsyncContextManager())
  return () => contextApi.disable()
}
