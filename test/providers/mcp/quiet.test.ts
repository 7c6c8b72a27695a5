import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { describe, expect, it } from 'vitest'
import { createLateResponseFilter } from '../../../src/providers/mcp/quiet.js'

/** Routes an error through the SDK's own dispatch, as the protocol layer does. */
function report(server: Server, message: string): void {
  ;(server as unknown as { _onerror(error: Error): void })._onerror(new Error(message))
}

describe('createLateResponseFilter', () => {
  it('keeps expected late responses and undeliverable cancellations out of onerror, and nothing else', () => {
    const server = new Server({ name: 's', version: '0' })
    const seen: string[] = []
    const filter = createLateResponseFilter(server)
    server.onerror = (error) => seen.push(error.message)
    expect(createLateResponseFilter(server)).toBe(filter)
    filter.expectLate(3)
    report(
      server,
      'Received a response for an unknown message ID: {"jsonrpc":"2.0","id":3,"result":{}}',
    )
    // Expected once: a second response for the same id is a real anomaly.
    report(
      server,
      'Received a response for an unknown message ID: {"jsonrpc":"2.0","id":3,"result":{}}',
    )
    report(
      server,
      'Received a response for an unknown message ID: {"jsonrpc":"2.0","id":4,"result":{}}',
    )
    // No transport: the client is gone, its cancellation has nowhere to go.
    report(server, 'Failed to send cancellation: Error: Not connected')
    report(server, 'Unknown message type: {}')
    expect(seen).toEqual([
      'Received a response for an unknown message ID: {"jsonrpc":"2.0","id":3,"result":{}}',
      'Received a response for an unknown message ID: {"jsonrpc":"2.0","id":4,"result":{}}',
      'Unknown message type: {}',
    ])
    expect(filter.nextRequestId()).toBe(0)
  })
})
