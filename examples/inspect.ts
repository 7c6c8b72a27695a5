import { createUserQuestions } from 'askseam'

// Any XState inspection observer will do. This one works in Node: it prints
// each statechart transition (x:0 is the seam's provider slot, x:1 its fleet,
// which keeps its lease in the store; then an actor per ask and per presentation).
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
// x:1 xstate.init → "starting"
// x:1 provider.changed → "starting"
// x:0 provider.registered → "active"
// x:3 xstate.init → "admitting"
// x:1 leases.changed → "starting"
// x:1 xstate.done.actor.0.fleet.starting → "firstRead"
// x:3 providers.elsewhere → "admitting"
// x:1 xstate.done.actor.0.fleet.firstRead → {"running":{"lease":"writing","leases":"idle","sweep":"idle","orphans":"idle","endings":"idle","feed":"reading"}}
// x:7 xstate.init → "presenting"
// x:3 admission.done → {"pending":"presented"}
// x:1 leases.changed → {"running":{"lease":"writing","leases":"reading","sweep":"idle","orphans":"idle","endings":"idle","feed":"reading"}}
// x:1 xstate.done.actor.0.fleet.running.lease.writing → {"running":{"lease":"dormant","leases":"reading","sweep":"idle","orphans":"idle","endings":"idle","feed":"reading"}}
// x:1 xstate.done.actor.0.fleet.running.feed.reading → {"running":{"lease":"dormant","leases":"reading","sweep":"idle","orphans":"idle","endings":"idle","feed":"synced"}}
// x:1 xstate.done.actor.0.fleet.running.leases.reading → {"running":{"lease":"dormant","leases":"idle","sweep":"idle","orphans":"idle","endings":"idle","feed":"synced"}}
// x:7 provider.answered → {"committing":"writing"}
// x:7 ask.settled → {"committing":"writing"}
// x:3 ask.settled → {"pending":"presented"}
// x:3 xstate.done.actor.presentation → "answered"
// x:7 commit.done → "accepted"
// x:0 seam.closed → "closed"
// x:1 fleet.stop → "releasing"
// x:1 xstate.done.actor.0.fleet.releasing → "stopped"
