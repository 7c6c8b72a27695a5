// A plan that two people must approve (DESIGN §12). Here one provider stands
// for a console two people use: it answers first as Alice, then as Bob. A real
// UI says who answered from what it authenticated (the console's `users`, the
// OS user, the MCP client), never from what a client says of itself.
import { createUserQuestions } from 'askseam'
import type { ProviderAnswer, Responder } from 'askseam'

const seam = createUserQuestions()
const people: Responder[] = [
  { id: 'alice', name: 'Alice', roles: ['lead'], via: 'web' },
  { id: 'bob', name: 'Bob', via: 'web' },
]
let next = 0
seam.registerProvider({
  async ask(request) {
    const { given = [], required = 1 } = request.approvals ?? {}
    console.log(`shown with ${given.length} of ${required} approvals`)
    void request.settlement?.then((settlement) => console.log(`told: ${settlement.status}`))
    const by = people[next++ % people.length]!
    return { answers: [{ id: 'plan', selected: ['Approve'] }], by } satisfies ProviderAnswer
  },
})

const answer = await seam.ask({
  key: 'deploy-42/plan',
  answerers: ['alice', 'bob', 'role:lead'], // set by the harness, never by the model
  approvals: 2,
  questions: [
    {
      id: 'plan',
      question: 'Run the migration plan?',
      detail: '1. Back up the database\n2. Run the migration\n3. Deploy',
      options: [{ label: 'Approve' }, { label: 'Revise' }],
      intent: { kind: 'plan-review', approve: 'Approve' },
    },
  ],
})
console.log(JSON.stringify(answer))

const [record] = await seam.history({ key: 'deploy-42/plan' })
console.log(record?.outcome?.by.map((responder) => responder.name).join(' and '))
console.log(record?.events.map((event) => event.type).join(' → '))
await seam.close()
// shown with 0 of 2 approvals
// told: counted
// shown with 1 of 2 approvals
// told: accepted
// {"answers":[{"id":"plan","selected":["Approve"]}]}
// Alice and Bob
// admitted → presented → vote → presented → vote → settled
