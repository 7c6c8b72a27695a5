/** The rule every follower of a store reads it by (src/protocol/store/late-reads.ts). */
import { describe, expect, it } from 'vitest'
import { createStoreReads } from '../../src/protocol/internal.js'
import { deferred } from '../support/deferred.js'

describe('createStoreReads', () => {
  it('tells each read the asks heard settled while it was under way, and no others', async () => {
    const reads = createStoreReads()
    reads.settled('before')
    const first = deferred<string>()
    const second = deferred<string>()
    const firstRead = reads.read(() => first.promise)
    reads.settled('during-both')
    const secondRead = reads.read(() => second.promise)
    reads.settled('during-second')
    first.resolve('one')
    const one = await firstRead
    reads.settled('after-first')
    second.resolve('two')
    const two = await secondRead
    reads.settled('after-both')
    expect(one.value).toBe('one')
    expect([...one.settledMeanwhile]).toEqual(['during-both', 'during-second'])
    expect(two.value).toBe('two')
    expect([...two.settledMeanwhile]).toEqual(['during-second', 'after-first'])
  })

  it('a read that fails rejects as its load did', async () => {
    const reads = createStoreReads()
    const failure = new Error('unreachable')
    await expect(reads.read(() => Promise.reject(failure))).rejects.toBe(failure)
  })
})
