import { createMemoryStore, createUserQuestions } from 'askseam'
import { createTerminalProvider } from 'askseam/terminal'
import { createAskUserQuestionTool } from 'askseam/tool'

const store = createMemoryStore() // or a shared one: askseam/sqlite, askseam/postgres
const seam = createUserQuestions({ store })
// Each answer given here carries by: { id: <the OS user>, via: 'terminal' }
seam.registerProvider(createTerminalProvider())

// The harness says who may answer; the model's arguments cannot (its schema has no such field).
const tool = createAskUserQuestionTool(seam, {
  answerers: ['alice', 'bob', 'role:release-manager'],
  approvals: 2, // a plan review is approved once two of them approved it
})
const toolCallId = 'call-1' // your runtime's id for this tool call
await tool.execute(
  {
    questions: [
      {
        id: 'plan',
        question: 'Approve this deployment plan?',
        detail: '1. Migrate the database\n2. Deploy to eu-west-1',
        options: [{ label: 'Approve' }, { label: 'Revise' }],
        intent: { kind: 'plan-review', approve: 'Approve' },
      },
    ],
  },
  { key: toolCallId },
)

// Who answered, when and from where: the ask's record, found by its key.
const [record] = await store.history({ key: toolCallId })
console.log(record?.outcome?.by.map(({ id, via }) => `${id} (${via})`))
await seam.close()
