/**
 * Who may answer is the harness's to say (DESIGN §12): the tool's options
 * and each framework adapter's carry `answerers` and `approvals` onto every
 * ask they apply to, and the model's arguments can never set them.
 */
import { describe, expect, it } from 'vitest'
import { askUserQuestionTool as aiSdkTool } from '../../src/adapters/ai-sdk/index.js'
import { askUserQuestionTool as langGraphTool } from '../../src/adapters/langgraph/index.js'
import { askUserQuestionTool as openAiAgentsTool } from '../../src/adapters/openai-agents/index.js'
import { createUserQuestions } from '../../src/protocol/index.js'
import type {
  AskUserQuestionRequest,
  ProviderAnswer,
  ProviderRequest,
  UserQuestions,
} from '../../src/protocol/index.js'
import { createAskUserQuestionTool } from '../../src/tool/index.js'

const dbArgs = {
  questions: [
    {
      id: 'db',
      question: 'Which database?',
      options: [{ label: 'Postgres' }, { label: 'SQLite' }],
    },
  ],
}
const planArgs = {
  questions: [
    {
      id: 'plan',
      question: 'Approve this plan?',
      detail: '1. Build\n2. Deploy',
      options: [{ label: 'Approve' }, { label: 'Revise' }],
      intent: { kind: 'plan-review', approve: 'Approve' },
    },
  ],
}

/**
 * A seam whose provider picks each question's last option (on a plan review,
 * a refusal: it settles at once however many approvals the ask needs), as a
 * responder every policy here admits, recording what it asked and was shown.
 */
function recordingSeam(): {
  seam: UserQuestions
  asked: AskUserQuestionRequest[]
  shown: ProviderRequest[]
} {
  const seam = createUserQuestions()
  const asked: AskUserQuestionRequest[] = []
  const shown: ProviderRequest[] = []
  seam.registerProvider({
    ask(request): Promise<ProviderAnswer> {
      shown.push(request)
      return Promise.resolve({
        answers: request.questions.map((question) => ({
          id: question.id,
          selected: [question.options?.at(-1)?.label ?? 'x'],
        })),
        by: { id: 'alice', roles: ['ops', 'reviewer'], via: 'test' },
      })
    },
  })
  const ask = seam.ask.bind(seam)
  seam.ask = (request) => {
    asked.push(request)
    return ask(request)
  }
  return { seam, asked, shown }
}

describe('the harness sets who may answer', () => {
  it('passes answerers on every ask, and approvals on a plan review', async () => {
    const { seam, asked } = recordingSeam()
    const tool = createAskUserQuestionTool(seam, { answerers: ['alice', 'role:ops'], approvals: 2 })
    await tool.execute(dbArgs)
    await tool.execute(planArgs)
    expect(asked.map(({ answerers, approvals }) => ({ answerers, approvals }))).toEqual([
      { answerers: ['alice', 'role:ops'], approvals: undefined },
      { answerers: ['alice', 'role:ops'], approvals: 2 },
    ])
  })

  it('asks as before when the harness sets no policy', async () => {
    const { seam, asked } = recordingSeam()
    await createAskUserQuestionTool(seam).execute(planArgs)
    expect(asked[0]).not.toHaveProperty('answerers')
    expect(asked[0]).not.toHaveProperty('approvals')
  })

  it("leaves them out of the model's input schema, and refuses them in the model's arguments without asking", async () => {
    const { seam, shown } = recordingSeam()
    const tool = createAskUserQuestionTool(seam)
    const schema = JSON.stringify(tool.inputSchema)
    expect(schema).not.toContain('answerers')
    expect(schema).not.toContain('approvals')
    const text = await tool.execute({ ...dbArgs, answerers: ['model-picked-me'] })
    expect(text).toMatch(/^INVALID_REQUEST: .*answerers/)
    const planText = await tool.execute({ ...planArgs, approvals: 1 })
    expect(planText).toMatch(/^INVALID_REQUEST: .*approvals/)
    expect(shown).toEqual([])
  })

  it("keeps the harness's answerers when the model names others", async () => {
    const { seam, asked } = recordingSeam()
    const tool = createAskUserQuestionTool(seam, { answerers: ['alice'] })
    expect(await tool.execute({ ...dbArgs, answerers: ['mallory'] })).toMatch(/^INVALID_REQUEST/)
    await tool.execute(dbArgs)
    // The refused call only probes the seam for an abort (no questions, no policy); none names mallory.
    expect(asked.map((request) => request.answerers)).toEqual([undefined, ['alice']])
  })

  it.each([
    [{ answerers: [] }, 'answerers'],
    [{ answerers: ['  '] }, 'answerers'],
    [{ approvals: 0 }, 'approvals'],
    [{ approvals: 2.5 }, 'approvals'],
  ])('throws INVALID_REQUEST when made with %j, naming the field', (options, field) => {
    const { seam } = recordingSeam()
    expect(() => createAskUserQuestionTool(seam, options)).toThrow(
      expect.objectContaining({ code: 'INVALID_REQUEST', details: { field } }),
    )
    expect(() => aiSdkTool(seam, options)).toThrow(expect.objectContaining({ details: { field } }))
    expect(() => langGraphTool(seam, options)).toThrow(
      expect.objectContaining({ details: { field } }),
    )
    expect(() => openAiAgentsTool(seam, options)).toThrow(
      expect.objectContaining({ details: { field } }),
    )
  })
})

describe('the framework adapters carry the policy', () => {
  it('ai-sdk', async () => {
    const { seam, asked } = recordingSeam()
    const tool = aiSdkTool(seam, { answerers: ['role:reviewer'], approvals: 3 })
    expect(JSON.stringify(tool.inputSchema)).not.toContain('answerers')
    await tool.execute?.(planArgs as never, { toolCallId: 'call-1', messages: [] })
    expect(asked[0]).toMatchObject({ key: 'call-1', answerers: ['role:reviewer'], approvals: 3 })
  })

  it('langgraph', async () => {
    const { seam, asked } = recordingSeam()
    const tool = langGraphTool(seam, { answerers: ['alice'] })
    await tool.invoke(dbArgs)
    expect(asked[0]).toMatchObject({ answerers: ['alice'] })
    expect(asked[0]).not.toHaveProperty('approvals')
  })
})
