import { createAgentRegistry, createUserQuestions, isUserQuestionError } from 'askseam'
import type { Agent } from 'askseam'

const rootAgent: Agent = { id: 'planner' }
const subagent: Agent = { id: 'researcher' }

const agents = createAgentRegistry()
const exitRoot = agents.enter(rootAgent) // a runtime root may ask
const exitChild = agents.enter(subagent, rootAgent) // a subagent may not: DELEGATED_CALLER
// requireAgent: an ask that names no agent is CALLER_NOT_LIVE, so leaving it out is no way around
const seam = createUserQuestions({ agents, requireAgent: true })
seam.registerProvider({
  // a stand-in UI that skips every question
  ask: async ({ questions }) => ({ answers: questions.map(({ id }) => ({ id, selected: [] })) }),
})

const questions = [{ id: 'go', question: 'Deploy now?' }]
for (const agent of [rootAgent, subagent, undefined]) {
  const outcome = await seam.ask(agent === undefined ? { questions } : { agent, questions }).then(
    (answer) => JSON.stringify(answer.answers),
    (error: unknown) => (isUserQuestionError(error) ? error.code : String(error)),
  )
  console.log(`${agent?.id ?? '(no agent)'}: ${outcome}`)
}
// planner: [{"id":"go","selected":[]}]
// researcher: DELEGATED_CALLER
// (no agent): CALLER_NOT_LIVE
exitChild()
exitRoot()
await seam.close()
