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
export { createTerminalProvider, notInteractiveError } from './provider.js'
export type { TerminalProvider, TerminalProviderOptions } from './provider.js'
export { createStyle, supportsColor } from './style.js'
export type { TerminalStyle } from './style.js'
