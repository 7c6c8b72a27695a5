import { createUserQuestions } from 'askseam'

// Any XState inspection observer will do. This one works in Node: it prints
// each statechart transition (x:0 is the seam's provider slot, then one actor per ask).
const seam = createUserQuestions({
  inspect: (event) => {
    if (event.type !== '@xstate.snapshot' || !('value' in event.snapshot)) return
    console.log(
      `${event.actorRef.sessionId} ${event.event.type} → ${JSON.stringify(event.snapshot.value)}`,
    )
  },
})
seam.registerProvider({
  // a stand-in UI that skips every question
  ask: async ({ questions }) => ({ answers: questions.map(({ id }) => ({ id, selected: [] })) }),
})
await seam.ask({ questions: [{ id: 'db', question: 'Which database?' }] })
await seam.close()
// x:0 xstate.init → "vacant"
// x:0 provider.registered → "active"
// x:1 xstate.init → {"pending":"presenting"}
// x:1 xstate.done.actor.0.ask.pending.presenting → "answered"
// x:0 seam.closed → "closed"
