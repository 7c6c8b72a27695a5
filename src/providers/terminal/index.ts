// The declarations name Node types (AbortSignal, streams, node:http); TypeScript 6+
// no longer loads @types/node unasked, so each entry point asks for it.
/// <reference types="node" preserve="true" />
/**
 * askseam/terminal: the terminal provider. One prompt owns the keyboard at a
 * time, simultaneous asks queue, and every batch is driven through
 * `questionnaireMachine`.
 *
 * @example
 * ```ts
 * import { createUserQuestions } from 'askseam'
 * import { createTerminalProvider } from 'askseam/terminal'
 *
 * const seam = createUserQuestions()
 * const terminal = createTerminalProvider()
 * seam.registerProvider(terminal)
 * ```
 */
export { createTerminalProvider } from './provider.js'
/**
 * @internal Shared with the askseam command (a resumed demo's answers); not
 * public API, left out of the declarations.
 */
export { describeOutcome } from './outcome-lines.js'
export type { TerminalProvider, TerminalProviderOptions } from './provider.js'
/**
 * @internal Shared with the askseam command (they import it through this
 * index); not public API, left out of the declarations.
 */
export { createStyle, supportsColor } from './style.js'
/**
 * @internal Shared with the askseam command (they import it through this
 * index); not public API, left out of the declarations.
 */
export type { TerminalStyle } from './style.js'
