/**
 * The hint line under a prompt, fitted to the width by priority: on a narrow
 * terminal the least needed hints go first, and the long spelling of a hint
 * gives way to its short one before anything is dropped.
 */
import { widthOf } from './text.js'

/** One hint: its words, a shorter form, and how much it matters (lower stays longer). */
export interface KeyHint {
  text: string
  short?: string
  priority: number
}

const SEPARATOR = ' · '

function lineOf(hints: readonly { text: string }[]): string {
  return hints.map((hint) => hint.text).join(SEPARATOR)
}

/** The hints, in their given order, that fit in `width` cells. */
export function fitHints(hints: readonly KeyHint[], width: number): string {
  let shown = hints.map((hint, order) => ({ ...hint, order }))
  if (widthOf(lineOf(shown)) <= width) return lineOf(shown)
  shown = shown.map((hint) => ({ ...hint, text: hint.short ?? hint.text }))
  const byImportance = [...shown].sort((a, b) => b.priority - a.priority || b.order - a.order)
  for (const drop of byImportance) {
    if (widthOf(lineOf(shown)) <= width || shown.length === 1) break
    shown = shown.filter((hint) => hint !== drop)
  }
  return lineOf(shown)
}
