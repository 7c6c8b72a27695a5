/**
 * A trace context as plain data (DESIGN §13): what the asking process keeps
 * with an ask in the store, so the process that presents it can link its
 * work to the ask's trace. A flat map of strings, the shape a text carrier
 * of trace propagation has (`traceparent`, `tracestate`); askseam reads no
 * key of it, only the telemetry that wrote it does.
 */
export type TraceContext = Readonly<Record<string, string>>

/** The most entries a trace context may hold. */
export const MAX_TRACE_CONTEXT_ENTRIES = 8
/** The most characters a trace context may hold, keys and values together. */
export const MAX_TRACE_CONTEXT_LENGTH = 4_096

/**
 * Reads a trace context from untrusted hands (a telemetry hook, a store
 * row): a plain object of at most {@link MAX_TRACE_CONTEXT_ENTRIES} non-empty
 * string keys with string values, {@link MAX_TRACE_CONTEXT_LENGTH} characters
 * in all. Anything else is `undefined`: telemetry is never a reason to refuse
 * or lose an ask, so a malformed context is dropped, not an error. An empty
 * map is `undefined` too (nothing to keep).
 */
export function readTraceContext(value: unknown): TraceContext | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const proto = Object.getPrototypeOf(value) as unknown
  if (proto !== Object.prototype && proto !== null) return undefined
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length === 0 || entries.length > MAX_TRACE_CONTEXT_ENTRIES) return undefined
  const context: Record<string, string> = {}
  let length = 0
  for (const [key, entry] of entries) {
    if (key === '' || typeof entry !== 'string') return undefined
    length += key.length + entry.length
    if (length > MAX_TRACE_CONTEXT_LENGTH) return undefined
    context[key] = entry
  }
  return Object.freeze(context)
}
