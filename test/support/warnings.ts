import { onTestFinished } from 'vitest'

/** A process warning's `code`, as `process.emitWarning` sets it. */
const codeOf = (warning: Error) => (warning as { code?: unknown }).code

/** Whether a warning carries this `code` (askseam's: `ASKSEAM_CORRUPT_ROW`, …). */
export const withCode = (code: string) => (warning: Error) => codeOf(warning) === code

/** Whether a warning is of this kind (`name`), e.g. Node's `TimeoutOverflowWarning`. */
export const named = (name: string) => (warning: Error) => warning.name === name

/**
 * The process warnings of one kind a test provokes, or must not provoke, for
 * it to read: until the test ends they are collected here instead of printed,
 * so the run's log shows only warnings nobody expected. Any other warning
 * reaches Node's own listeners as before. Call it inside a test or a
 * `beforeEach`.
 */
export function captureWarnings(kind: (warning: Error) => boolean): Error[] {
  const printers = process.listeners('warning')
  const captured: Error[] = []
  const listener = (warning: Error) => {
    if (kind(warning)) captured.push(warning)
    else for (const print of printers) print(warning)
  }
  for (const print of printers) process.off('warning', print)
  process.on('warning', listener)
  onTestFinished(() => {
    process.off('warning', listener)
    for (const print of printers) process.on('warning', print)
  })
  return captured
}
