/**
 * Who answers through MCP elicitation (DESIGN §12), with the official SDK
 * client: `by` is the client as its `clientInfo` names it, an ask that needs
 * several approvals says how many it has in the message, and an ask that is
 * not the client's to answer is never sent to it.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { UserQuestionError } from '../../../src/protocol/index.js'
import { MAX_RESPONDER_FIELD_LENGTH } from '../../../src/vocabulary/index.js'
import type { AskUserQuestionItem, ProviderRequest } from '../../../src/protocol/index.js'
import { connectPair } from '../../support/mcp-pair.js'
import type { McpPair, McpPairOptions } from '../../support/mcp-pair.js'

const open: McpPair[] = []
async function pair(options: McpPairOptions = {}): Promise<McpPair> {
  const created = await connectPair(options)
  open.push(created)
  return created
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((created) => created.close()))
})

const desktop = { name: 'claude-desktop', title: 'Claude Desktop', version: '1.2.3' }
const db: AskUserQuestionItem[] = [
  { id: 'db', question: 'Which database?', options: [{ label: 'Postgres' }, { label: 'SQLite' }] },
]
const plan: AskUserQuestionItem[] = [
  {
    id: 'plan',
    question: 'Approve this plan?',
    detail: '1. Build\n2. Deploy',
    options: [{ label: 'Approve' }, { label: 'Revise' }],
    intent: { kind: 'plan-review', approve: 'Approve' },
  },
]

function request(questions: AskUserQuestionItem[], extra: Partial<ProviderRequest> = {}) {
  const controller = new AbortController()
  const made: ProviderRequest = { askId: 'ask-1', questions, signal: controller.signal, ...extra }
  return { request: made, controller }
}

describe('who answers through MCP elicitation', () => {
  it('resolves with by from the client’s clientInfo: its name as id, its title as name, via mcp', async () => {
    const { provider, inbox } = await pair({ clientInfo: desktop })
    const answer = provider.ask(request(db).request)
    ;(await inbox.next()).respond({ action: 'accept', content: { db: 'SQLite' } })
    await expect(answer).resolves.toEqual({
      answers: [{ id: 'db', selected: ['SQLite'] }],
      by: { id: 'claude-desktop', name: 'Claude Desktop', via: 'mcp' },
    })
  })

  it('names the client by its name when it gives no title, and the seam still answers with the answers alone', async () => {
    const { seam, provider, inbox } = await pair({
      clientInfo: { name: 'cli-client', version: '1' },
    })
    const direct = provider.ask(request(db).request)
    ;(await inbox.next()).respond({ action: 'accept', content: { db: 'Postgres' } })
    await expect(direct).resolves.toMatchObject({
      by: { id: 'cli-client', name: 'cli-client', via: 'mcp' },
    })
    const through = seam.ask({ questions: db })
    ;(await inbox.next()).respond({ action: 'accept', content: { db: 'Postgres' } })
    await expect(through).resolves.toEqual({ answers: [{ id: 'db', selected: ['Postgres'] }] })
  })

  it('names a client whose name the stores cannot keep as given by one they can, so its answers count', async () => {
    // A NUL, and a title whose cut at the longest length would split an emoji's surrogate pair.
    const title = `${'t'.repeat(MAX_RESPONDER_FIELD_LENGTH - 1)}🙂`
    const { seam, provider, inbox } = await pair({
      clientInfo: { name: 'desk\u0000top', title, version: '1' },
    })
    const direct = provider.ask(request(db).request)
    ;(await inbox.next()).respond({ action: 'accept', content: { db: 'SQLite' } })
    await expect(direct).resolves.toMatchObject({
      by: { id: 'desk\ufffdtop', name: 't'.repeat(MAX_RESPONDER_FIELD_LENGTH - 1), via: 'mcp' },
    })
    const through = seam.ask({ questions: db })
    ;(await inbox.next()).respond({ action: 'accept', content: { db: 'Postgres' } })
    await expect(through).resolves.toEqual({ answers: [{ id: 'db', selected: ['Postgres'] }] })
  })

  it('says how many approvals the plan has so far at the top of the message', async () => {
    const { provider, inbox } = await pair({ clientInfo: desktop })
    const answer = provider.ask(
      request(plan, {
        approvals: { required: 2, given: [{ id: 'alice', name: 'Alice', via: 'web' }] },
      }).request,
    )
    const incoming = await inbox.next()
    expect(incoming.params.message.split('\n')[0]).toBe('1 of 2 approvals so far: Alice')
    expect(incoming.params.message).toContain('1. Build')
    incoming.respond({ action: 'accept', content: { plan: 'Approve' } })
    await expect(answer).resolves.toMatchObject({
      answers: [{ id: 'plan', selected: ['Approve'] }],
      by: { id: 'claude-desktop' },
    })
  })

  it('says "0 of 3 approvals so far" before anyone approved', async () => {
    const { provider, inbox } = await pair({ clientInfo: desktop })
    const answer = provider.ask(request(plan, { approvals: { required: 3, given: [] } }).request)
    // Closing the pair ends it; only the message is looked at here.
    answer.catch(() => undefined)
    expect((await inbox.next()).params.message).toMatch(/^0 of 3 approvals so far\n\n/)
  })

  it.each([
    ['answerers leave the client out', { answerers: ['alice', 'role:ops'] }],
    [
      'the client approved already',
      { approvals: { required: 2, given: [{ id: 'claude-desktop', via: 'mcp' }] } },
    ],
  ])('sends nothing when %s, and ends with the ask', async (_case, extra) => {
    const { provider, received } = await pair({ clientInfo: desktop })
    const { request: made, controller } = request(plan, extra)
    const answer = provider.ask(made)
    const reason = new UserQuestionError('answered in the console', 'ASK_ABORTED', {
      details: { reason: 'settled-elsewhere' },
    })
    controller.abort(reason)
    await expect(answer).rejects.toBe(reason)
    expect(
      received.filter((message) => 'method' in message && message.method === 'elicitation/create'),
    ).toEqual([])
  })

  it('asks a client its answerers name', async () => {
    const { provider, inbox } = await pair({ clientInfo: desktop })
    const answer = provider.ask(request(db, { answerers: ['claude-desktop'] }).request)
    ;(await inbox.next()).respond({ action: 'accept', content: { db: 'SQLite' } })
    await expect(answer).resolves.toMatchObject({ by: { id: 'claude-desktop' } })
  })
})
