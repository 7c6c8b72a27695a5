/**
 * `askseam/otel`: the human wait as OpenTelemetry spans and metrics (DESIGN
 * §13). Needs the optional peer `@opentelemetry/api` 1.x; without this entry
 * point nothing of OpenTelemetry is loaded.
 *
 * @example
 * ```ts
 * import { createUserQuestions } from 'askseam'
 * import { openTelemetry } from 'askseam/otel'
 *
 * const seam = createUserQuestions({ telemetry: openTelemetry() })
 * ```
 */
export { openTelemetry } from './open-telemetry.js'
export type { OpenTelemetryOptions } from './open-telemetry.js'
