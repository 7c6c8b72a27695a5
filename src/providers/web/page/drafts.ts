/**
 * A tab's saved progress on each ask (sessionStorage), so a reload resumes
 * it; only for the very same questions.
 */
import type { Snapshot } from 'xstate'
import type { AskUserQuestionItem } from '../../../vocabulary/index.js'

const draftKey = (rpcId: string) => `askseam:draft:${rpcId}`

/** The saved progress on an ask, if it was saved for these very questions. */
export function savedDraft(
  rpcId: string,
  questions: AskUserQuestionItem[],
): Snapshot<unknown> | undefined {
  try {
    const saved = JSON.parse(sessionStorage.getItem(draftKey(rpcId)) ?? 'null') as {
      status?: unknown
      context?: { questions?: unknown }
    } | null
    if (saved?.status !== 'active') return undefined
    if (JSON.stringify(saved.context?.questions) !== JSON.stringify(questions)) return undefined
    return saved as Snapshot<unknown>
  } catch {
    return undefined
  }
}

/** Saves the progress on an ask. */
export function saveDraft(rpcId: string, snapshot: unknown): void {
  try {
    sessionStorage.setItem(draftKey(rpcId), JSON.stringify(snapshot))
  } catch {
    // Storage full or disabled: a reload then starts the questions over, nothing worse.
  }
}

/** Forgets the progress on an ask. */
export function forgetDraft(rpcId: string): void {
  try {
    sessionStorage.removeItem(draftKey(rpcId))
  } catch {
    // Nothing was stored.
  }
}
