/**
 * Writes the terminal captures in docs/terminal/ that show the plan review
 * and the review screen: the terminal provider in a real pty (the test
 * fixture host), its screen read from a headless xterm, as a user would see
 * it at 80 and at 40 columns.
 *
 *   npx tsx scripts/terminal-captures.ts
 */
import { writeFile } from 'node:fs/promises'
import type { AskUserQuestionItem } from '../src/protocol/index.js'
import { planReviewQuestion } from '../src/cli/scenario.js'
import { startFixture } from '../test/providers/terminal/fixture.js'
import { Keys } from '../test/support/pty-screen.js'
import type { PtySession } from '../test/support/pty-screen.js'

const docs = new URL('../docs/terminal/', import.meta.url).pathname
const plan = planReviewQuestion(
  [
    '# Roll out checkout-service v2.4.0',
    '',
    'Ship to eu-west-1 behind a canary; see the [runbook](https://runbooks.example.com/checkout).',
    '',
    '## Steps',
    '',
    '1. Build and sign the image with **cosign**',
    '2. Run the gates:',
    '   - Smoke tests',
    '   - Database migration dry run',
    '3. Shift 10% of traffic for 15 minutes',
    '',
    '> Rollback: `kubectl rollout undo deploy/checkout`',
    '',
    '<script>alert(1)</script>',
  ].join('\n'),
)
const twoQuestions: AskUserQuestionItem[] = [
  {
    id: 'region',
    header: 'Region',
    question: 'Which region?',
    options: [{ label: 'eu-west-1 (Recommended)' }, { label: 'us-east-1' }],
  },
  { id: 'notes', header: 'Release notes', question: 'Anything to announce?' },
]

/** The screen once `marker` shows and what is under it matches `rest` (the whole frame). */
async function frame(session: PtySession, marker: string, rest: RegExp): Promise<string> {
  return session.waitForScreen((screen) => {
    const lines = screen.split('\n')
    const at = lines.findLastIndex((line) => line.includes(marker))
    return at >= 0 && rest.test(lines.slice(at).join('\n'))
  })
}

async function capture(name: string, screen: string): Promise<void> {
  const text = `${screen.replace(/ +$/gm, '').replace(/\n+$/, '')}\n`
  await writeFile(`${docs}${name}`, text)
  console.log(`wrote docs/terminal/${name}`)
}

async function planAt(columns: number, name: string): Promise<void> {
  const session = startFixture({ asks: [[plan]], timeoutMs: 300_000 }, { columns, rows: 40 })
  try {
    await capture(name, await frame(session, 'Approve this deployment plan?', /esc dismiss/))
  } finally {
    session.kill()
  }
}

async function feedbackPaste(): Promise<void> {
  const session = startFixture({ asks: [[plan]] }, { columns: 80, rows: 40 })
  try {
    await frame(session, 'Approve this deployment plan?', /esc dismiss/)
    session.type('2')
    session.type(
      '\u001b[200~Keep v2.3.9 warm for a day, not an hour.\r\n\r\nAnd page the on-call first.\u001b[201~',
    )
    await capture(
      'plan-feedback-paste.txt',
      await frame(session, 'Approve this deployment plan?', /on-call[\s\S]*enter send/),
    )
  } finally {
    session.kill()
  }
}

async function reviewAt40(): Promise<void> {
  const session = startFixture({ asks: [twoQuestions] }, { columns: 40, rows: 24 })
  try {
    await frame(session, 'Region', /esc dismiss/)
    session.type(`3eu-central-1 please, with a canary first${Keys.enter}`)
    await frame(session, 'Anything to announce?', /enter confirm/)
    session.type(`Faster checkout in Frankfurt${Keys.enter}`)
    await capture('review.txt', await frame(session, 'Review your answers', /esc dismiss/))
  } finally {
    session.kill()
  }
}

await planAt(80, 'plan-review.txt')
await planAt(40, 'plan-review-40-columns.txt')
await feedbackPaste()
await reviewAt40()
