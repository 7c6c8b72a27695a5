import type { SpanContext, TraceState } from '@opentelemetry/api'
import type { TraceContext } from '../protocol/index.js'

/*
 * A span's context as the plain carrier askseam keeps with an ask, in the
 * W3C Trace Context format (`traceparent`, `tracestate`). Written here rather
 * than through the global propagator: a process that registered none (the
 * API's default is a no-op) still links its presentations to the ask.
 */

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** The carrier of a span's context; `undefined` for a context that is not valid (a non-recording no-op span's). */
export function writeTraceContext(
  span: SpanContext,
  isValid: (context: SpanContext) => boolean,
): TraceContext | undefined {
  if (!isValid(span)) return undefined
  const flags = (span.traceFlags & 0xff).toString(16).padStart(2, '0')
  const carrier: Record<string, string> = {
    traceparent: `00-${span.traceId}-${span.spanId}-${flags}`,
  }
  const state = span.traceState?.serialize()
  if (state !== undefined && state !== '') carrier.tracestate = state
  return carrier
}

/** The remote span context a carrier names; `undefined` when it names none this format reads. */
export function readSpanContext(
  carrier: TraceContext | undefined,
  api: {
    isValid(context: SpanContext): boolean
    traceState(serialized: string): TraceState
  },
): SpanContext | undefined {
  const match = carrier?.traceparent === undefined ? null : TRACEPARENT.exec(carrier.traceparent)
  if (match === null) return undefined
  const context: SpanContext = {
    traceId: match[1] as string,
    spanId: match[2] as string,
    traceFlags: Number.parseInt(match[3] as string, 16),
    isRemote: true,
  }
  const state = carrier?.tracestate
  if (state !== undefined && state !== '') context.traceState = api.traceState(state)
  return api.isValid(context) ? context : undefined
}
