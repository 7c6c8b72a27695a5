/**
 * The relay's limits (`maxFramesPerWindow`, `rateWindowMs`,
 * `maxBufferedBytes`, `stallTimeoutMs`, `framesPerTurn`): a value the relay
 * cannot use is a `TypeError` naming the limit, thrown before anything
 * starts, by `createRelay` and by `startWebConsole`.
 */
import { describe, expect, it } from 'vitest'
import { createUserQuestions } from '../../../src/protocol/index.js'
import { createRelay, startWebConsole } from '../../../src/providers/web/index.js'
import type { RelayOptions } from '../../../src/providers/web/index.js'
import { relayLimits } from '../../../src/providers/web/relay-limits.js'
import { fakeClient, respond } from './relay-harness.js'

type Limit = Exclude<keyof RelayOptions, 'authorize' | 'responderOf'>

const durations: Limit[] = ['rateWindowMs', 'maxBufferedBytes', 'stallTimeoutMs']
const counts: Limit[] = ['maxFramesPerWindow', 'framesPerTurn']
const notPositive = [0, -1, Number.NaN, -Infinity, '10', null]

/** A seam that records whether a provider was registered with it. */
function recordingSeam() {
  const seam = {
    registered: 0,
    registerProvider: () => {
      seam.registered++
      return () => {}
    },
  }
  return seam
}

describe('relay limits', () => {
  it.each([...durations, ...counts].flatMap((limit) => notPositive.map((value) => [limit, value])))(
    'refuses %s = %s before registering with the seam',
    (limit, value) => {
      const seam = recordingSeam()
      expect(() => createRelay(seam, { [limit as Limit]: value as number })).toThrow(
        new TypeError(
          `relay limit ${String(limit)} must be a number greater than 0, not ${String(value)}`,
        ),
      )
      expect(seam.registered).toBe(0)
    },
  )

  it.each(counts.flatMap((limit) => [1.5, Infinity, 2 ** 53].map((value) => [limit, value])))(
    'refuses a count %s = %s that is not whole',
    (limit, value) => {
      expect(() => createRelay(recordingSeam(), { [limit as Limit]: value as number })).toThrow(
        new TypeError(`relay limit ${String(limit)} must be a whole number, not ${String(value)}`),
      )
    },
  )

  it('takes durations that are not whole, or endless, and every default', () => {
    const seam = recordingSeam()
    createRelay(seam, { rateWindowMs: 0.5, maxBufferedBytes: Infinity, stallTimeoutMs: 1e12 })
    createRelay(seam, {})
    expect(seam.registered).toBe(2)
    expect(relayLimits({ rateWindowMs: 0.5, maxBufferedBytes: Infinity })).toMatchObject({
      rateWindowMs: 0.5,
      maxBufferedBytes: Infinity,
    })
  })

  it('fills in the defaults RelayOptions documents', () => {
    expect(relayLimits({})).toEqual({
      maxFramesPerWindow: 200,
      rateWindowMs: 1000,
      maxBufferedBytes: 4 * 1024 * 1024,
      stallTimeoutMs: 10_000,
      framesPerTurn: 4,
    })
  })

  it('uses what it took: a window of one frame throttles the second', () => {
    const relay = createRelay(createUserQuestions(), {
      maxFramesPerWindow: 1,
      rateWindowMs: 60_000,
    })
    const client = fakeClient()
    const connection = relay.connect(client)
    connection.receive(respond('first'))
    connection.receive(respond('second'))
    expect(client.framesOf('receipt').map((receipt) => receipt.rpcId)).toEqual(['first'])
    expect(client.framesOf('error')).toEqual([
      expect.objectContaining({
        code: 'rate-limited',
        message: expect.stringContaining('1 frames in 60000 ms'),
      }),
    ])
  })

  it('makes startWebConsole refuse a bad limit before it listens', async () => {
    const seam = createUserQuestions()
    await expect(startWebConsole({ seam, limits: { framesPerTurn: 0 } })).rejects.toThrow(
      new TypeError('relay limit framesPerTurn must be a number greater than 0, not 0'),
    )
    // Nothing was registered: a console can still start on the same seam.
    const web = await startWebConsole({ seam })
    await web.close()
  })
})
