/** Starts the terminal fixture host (fixtures/ask.ts) in a real pty and reads its results. */
import { fileURLToPath } from 'node:url'
import type { AskUserQuestionAnswer, AskUserQuestionItem } from '../../../src/protocol/index.js'
import { startPty } from '../../support/pty-screen.js'
import type { PtySession } from '../../support/pty-screen.js'

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const FIXTURE = fileURLToPath(new URL('./fixtures/ask.ts', import.meta.url))

/** What the fixture asks: batches (or named ones), in the same tick unless `repeat` is given. */
export interface FixtureSpec {
  asks: (AskUserQuestionItem[] | 'deployment' | 'plan' | 'large')[]
  timeoutMs?: number
  repeat?: number
  /** Who may answer each ask (DESIGN §12). */
  answerers?: string[]
  /** How many approvals each (plan-review) ask needs. */
  approvals?: number
}

/** One settled ask as the fixture printed it. */
export type FixtureResult =
  | { ask: number; ok: true; answer: AskUserQuestionAnswer }
  | { ask: number; ok: false; code: string; reason?: unknown }

/** Starts the fixture with `spec` in a pty of the given size. */
export function startFixture(
  spec: FixtureSpec,
  size: { columns?: number; rows?: number } = {},
  env: Record<string, string | undefined> = {},
): PtySession {
  return startPty({
    command: process.execPath,
    args: ['--import', 'tsx', FIXTURE],
    cwd: ROOT,
    env: {
      ASKSEAM_FIXTURE: JSON.stringify(spec),
      NO_COLOR: undefined,
      FORCE_COLOR: undefined,
      ...env,
    },
    ...size,
  })
}

/** Every `RESULT` line printed so far. */
export function resultsOf(session: PtySession): FixtureResult[] {
  // A result may land mid-line when the host writes while a prompt is drawing.
  return [...session.transcript().matchAll(/RESULT (\{[^\n]*\})\n/g)].map(
    (match) => JSON.parse(match[1] ?? '') as FixtureResult,
  )
}

/** Waits for the result of ask number `index` and returns it. */
export async function resultOf(session: PtySession, index: number): Promise<FixtureResult> {
  await session.waitForOutput(new RegExp(`RESULT \\{"ask":${index},.*\\}\\n`))
  const result = resultsOf(session).find((entry) => entry.ask === index)
  if (result === undefined) throw new Error(`no result for ask ${index}`)
  return result
}
