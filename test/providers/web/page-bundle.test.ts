import { describe, expect, it } from 'vitest'
import { consoleScript } from '../../../src/providers/web/page-assets.generated.js'

// Names that only the machines the page does not run carry: the ask and the
// seam's provider slot (the host's side), the relay's, the terminal's queue,
// a webhook's delivery, an MCP call's keepalive.
const hostOnly = [
  'proposeCallerAbort',
  'no provider is bound to this ask',
  'provider.registered',
  'promoteNext',
  'relayClient',
  'relayAsk',
  'webhookDelivery',
  'keepalive.tick',
]

describe('the console page script', () => {
  it('carries the machines the page runs and none of the host’s (they are marked pure)', () => {
    expect(consoleScript).toContain('plan.approved')
    expect(consoleScript).toContain('socket.opened')
    for (const name of hostOnly) expect(consoleScript, name).not.toContain(name)
  })
})
