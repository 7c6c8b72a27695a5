/**
 * startNotifier's options: each that is wrong is refused at once, coded
 * INVALID_REQUEST with the option's name, before anything is sent.
 */
import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../src/protocol/index.js'
import type { AskStore } from '../../src/protocol/index.js'
import { startNotifier } from '../../src/notify/index.js'
import type { NotifierOptions } from '../../src/notify/index.js'
import { testSecret } from '../support/webhook-receiver.js'

describe('startNotifier options', () => {
  const store = createMemoryStore()
  const webhook = { url: 'http://127.0.0.1:9/hook', secret: testSecret() }
  const refused = (options: Partial<NotifierOptions>, field: string) => {
    let error: unknown
    try {
      startNotifier({ store, webhook, ...options } as NotifierOptions)
    } catch (thrown: unknown) {
      error = thrown
    }
    expect(error).toMatchObject({
      name: 'UserQuestionError',
      code: 'INVALID_REQUEST',
      details: { field },
    })
  }

  it('refuses a secret that is not whsec_ + base64, naming the option', () => {
    refused({ webhook: { url: webhook.url, secret: 'hunter2' } }, 'webhook.secret')
    refused({ webhook: { url: webhook.url, secret: 'whsec_' } }, 'webhook.secret')
    refused({ webhook: { url: webhook.url, secret: 'whsec_not base64!' } }, 'webhook.secret')
  })

  it('refuses URLs that are not http(s) and durations that are negative or not numbers', () => {
    refused({ webhook: { url: 'ftp://example.com', secret: webhook.secret } }, 'webhook.url')
    refused({ webhook: { url: 'not a url', secret: webhook.secret } }, 'webhook.url')
    refused({ consoleUrl: 'javascript:alert(1)' }, 'consoleUrl')
    refused({ notifyAfterMs: -1 }, 'notifyAfterMs')
    refused({ remindEveryMs: Number.NaN }, 'remindEveryMs')
    refused({ remindEveryMs: 0 }, 'remindEveryMs')
    refused({ escalateAfterMs: -5 }, 'escalateAfterMs')
    refused({ maxReminders: 1.5 }, 'maxReminders')
  })

  // fetch refuses every request to such a URL: it was accepted, then retried for a day unsent.
  it('refuses URLs with a user name or password, saying where a token goes instead, never echoing it', () => {
    const refusal = (options: Partial<NotifierOptions>): unknown => {
      try {
        startNotifier({ store, webhook, ...options } as NotifierOptions)
      } catch (thrown: unknown) {
        return thrown
      }
      return undefined
    }
    for (const url of [
      'http://hook:pw-s3cret@127.0.0.1:9/hook',
      'https://pw-s3cret@example.com/',
    ]) {
      const error = refusal({ webhook: { url, secret: webhook.secret } })
      expect(error).toMatchObject({
        code: 'INVALID_REQUEST',
        details: { field: 'webhook.url', rule: 'credentials' },
        message: expect.stringMatching(/webhook-signature.*path or query$/),
      })
      expect((error as Error).message).not.toContain('s3cret')
    }
    expect(refusal({ consoleUrl: 'http://me:pw-s3cret@127.0.0.1:4000/' })).toMatchObject({
      details: { field: 'consoleUrl', rule: 'credentials' },
      message: expect.stringContaining('?token='),
    })
    const notHttp = refusal({
      webhook: { url: 'ftp://hook:pw-s3cret@example.com/', secret: webhook.secret },
    })
    expect(notHttp).toMatchObject({ details: { field: 'webhook.url', rule: 'url' } })
    expect((notHttp as Error).message).toContain('"ftp://…@example.com/"')
  })

  it('refuses a maxInFlight that is not a whole number above 0', () => {
    refused({ maxInFlight: 0 }, 'maxInFlight')
    refused({ maxInFlight: 2.5 }, 'maxInFlight')
    refused({ maxInFlight: '4' as unknown as number }, 'maxInFlight')
  })

  it('refuses a store without a notification ledger', () => {
    const { notifications: _ledger, ...withoutLedger } = createMemoryStore()
    refused({ store: withoutLedger as AskStore }, 'store')
  })
})
