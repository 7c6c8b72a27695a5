/**
 * One console of the quorum benchmark (quorum.bench.ts), in a process of its
 * own: a seam on the benchmark's SQLite file with a provider that tells the
 * parent each ask it is shown, and answers it when the parent says, as the
 * responder the parent names. Not a benchmark itself.
 */
import { createUserQuestions } from '../src/protocol/index.js'
import type { ProviderAnswer, ProviderRequest } from '../src/protocol/index.js'
import { createSqliteStore } from '../src/stores/sqlite/index.js'
import { preciseNow } from './quorum-wire.js'
import type { VoterCommand, VoterReport } from './quorum-wire.js'

const path = process.argv[2]
if (path === undefined) throw new Error('quorum-voter: the SQLite file is its argument')
const send = (report: VoterReport) => process.send?.(report)
const shown = new Map<string, (answer: ProviderAnswer) => void>()
const seam = createUserQuestions({ store: createSqliteStore({ path }) })
seam.registerProvider({
  ask(request: ProviderRequest) {
    return new Promise<ProviderAnswer>((resolve) => {
      shown.set(request.askId, resolve)
      void request.settlement?.then((settlement) =>
        send({ type: 'told', askId: request.askId, status: settlement.status }),
      )
      send({ type: 'shown', askId: request.askId })
    })
  },
})
process.on('message', (command: VoterCommand | 'exit') => {
  if (command === 'exit') {
    void seam.close().then(() => process.exit(0))
    return
  }
  const answer = shown.get(command.askId)
  if (answer === undefined) throw new Error(`quorum-voter: ask ${command.askId} is not shown here`)
  shown.delete(command.askId)
  const at = preciseNow()
  answer({ answers: [{ id: 'plan', selected: [command.label] }], by: command.by })
  send({ type: 'answered', askId: command.askId, at })
})
send({ type: 'ready' })
