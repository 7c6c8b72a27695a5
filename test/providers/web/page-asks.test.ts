import { beforeEach, describe, expect, it } from 'vitest'
import { createActor } from 'xstate'
import { questionnaireMachine } from '../../../src/machines/index.js'
import { createPageAsks } from '../../../src/providers/web/page/asks.js'
import type { Ask } from '../../../src/providers/web/page/queue-view.js'
import { installSessionStorage } from '../../support/session-storage.js'

/**
 * The page's asks module on what the model test does not vary: the parts of
 * a `question/requested` frame the page reads, frames that are not an
 * ask's, several asks at once, and a draft the tab saved before a reload.
 */

const storage = installSessionStorage()
beforeEach(() => storage.clear())

const question = { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }] }
const requested = (rpcId: string, extra: Record<string, unknown> = {}) => ({
  type: 'question/requested',
  rpcId,
  questions: [question],
  ...extra,
})

function page() {
  const seen = {
    sent: [] as string[],
    offered: [] as string[],
    arrived: [] as Ask[],
    told: [] as string[],
  }
  const asks = createPageAsks(
    {
      send: (frame) => seen.sent.push(frame),
      offered: (rpcId) => seen.offered.push(rpcId),
      arrived: (ask) => seen.arrived.push(ask),
      returned: () => undefined,
      changed: () => undefined,
      left: () => undefined,
      restarted: () => undefined,
      tell: (text) => seen.told.push(text),
    },
    () => 'ana',
  )
  return { asks, ...seen }
}

describe('the console page’s asks', () => {
  it('reads an offer’s session and deadline, and drops ones of the wrong kind', () => {
    const { asks } = page()
    asks.frame(requested('a', { sessionId: 'deploy-agent', deadline: 5_000 }))
    asks.frame(requested('b', { sessionId: 7, deadline: 'soon' }))
    asks.frame(requested('c', { deadline: Number.POSITIVE_INFINITY }))
    expect(asks.get('a')?.sessionId).toBe('deploy-agent')
    expect(asks.get('a')?.deadline).toEqual({ at: 5_000, since: expect.any(Number) as number })
    expect(asks.get('b')).toMatchObject({ sessionId: undefined, deadline: undefined })
    expect(asks.get('c')?.deadline).toBeUndefined()
  })

  it('tells the page of a new ask once, and of every offer of it', () => {
    const { asks, offered, arrived } = page()
    asks.frame(requested('a'))
    asks.frame(requested('a'))
    expect(offered).toEqual(['a', 'a'])
    expect(arrived.map((ask) => ask.rpcId)).toEqual(['a'])
  })

  it('says an ask ended, in the words of its outcome or plainly for one it does not know', () => {
    const { asks, told } = page()
    asks.frame(requested('a'))
    asks.frame(requested('b'))
    asks.frame({ type: 'question/resolved', rpcId: 'a', outcome: 'timed-out' })
    asks.frame({ type: 'question/resolved', rpcId: 'b', outcome: 'vanished' })
    expect(told).toEqual(['“Which database?” timed out.', '“Which database?” ended.'])
  })

  it('ignores an offer without a list of questions', () => {
    const { asks, offered, arrived } = page()
    expect(asks.frame({ type: 'question/requested', rpcId: 'a', questions: 'none' })).toBe(true)
    expect(asks.get('a')).toBeUndefined()
    expect([offered, arrived]).toEqual([[], []])
  })

  it('takes an ask’s three frames and leaves every other to the page', () => {
    const { asks, told } = page()
    expect(asks.frame({ type: 'hello', user: { id: 'ana' } })).toBe(false)
    expect(asks.frame({ type: 'error', message: 'rate-limited' })).toBe(false)
    // About an ask the page does not know: taken, and nothing happens.
    expect(asks.frame({ type: 'question/resolved', rpcId: 'x', outcome: 'answered' })).toBe(true)
    expect(asks.frame({ type: 'receipt', rpcId: 'x', accepted: false, reason: 'x' })).toBe(true)
    expect(told).toEqual([])
  })

  it('sends an unconfirmed answer again on an offer without approvals', () => {
    const { asks, sent } = page()
    asks.frame(requested('a'))
    asks.get('a')?.actor.send({ type: 'batch.cancelled' })
    asks.frame(requested('a'))
    expect(sent).toHaveLength(2)
    expect(sent[1]).toBe(sent[0])
  })

  it('says how many asks ended while the console was away, and nothing of one it does not list', () => {
    const { asks, told } = page()
    asks.frame(requested('a'))
    asks.frame(requested('b'))
    asks.unoffered(['a', 'b', 'gone'])
    expect(told).toEqual([
      '2 questions are no longer waiting: they ended while the console was away.',
    ])
    expect(asks.listed()).toEqual([])
    asks.unoffered(['a'])
    expect(told).toHaveLength(1)
  })

  it('resumes the draft the tab saved for the very same questions, and only for them', () => {
    const draft = createActor(questionnaireMachine, { input: { questions: [question] } }).start()
    draft.send({ type: 'custom.typed', text: 'MariaDB' })
    storage.set('askseam:draft:a', JSON.stringify(draft.getPersistedSnapshot()))
    storage.set('askseam:draft:b', JSON.stringify(draft.getPersistedSnapshot()))
    const { asks } = page()
    asks.frame(requested('a'))
    asks.frame({ ...requested('b'), questions: [{ ...question, question: 'Which store?' }] })
    expect(asks.get('a')?.actor.getSnapshot().context.drafts.db?.custom).toBe('MariaDB')
    expect(asks.get('b')?.actor.getSnapshot().context.drafts.db?.custom).toBeUndefined()
  })
})
