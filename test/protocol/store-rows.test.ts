import { describe, expect, it } from 'vitest'
import { CorruptRowError, parseNotificationRow, parseRows } from '../../src/protocol/internal.js'

describe('parseRows (the stores’ row loop)', () => {
  it('skips and reports a corrupt row, keeping the others in order', () => {
    const reported: string[] = []
    const parsed = parseRows(
      ['a', 'bad', 'c'],
      (row) => {
        if (row === 'bad') throw new CorruptRowError('row bad is garbage')
        return row.toUpperCase()
      },
      (error) => reported.push(error.message),
    )
    expect(parsed).toEqual(['A', 'C'])
    expect(reported).toEqual(['row bad is garbage'])
  })

  it('lets any other error through: a bug is not a bad row', () => {
    const reported: unknown[] = []
    expect(() =>
      parseRows(
        ['a'],
        () => {
          throw new TypeError('a bug')
        },
        (error) => reported.push(error),
      ),
    ).toThrow(TypeError)
    expect(reported).toEqual([])
  })
})

describe('parseNotificationRow', () => {
  const row = { event_id: 'a1.pending', ask_id: 'a1', holder: null, expires_at: null, ending: null }

  it('reads a row of either dialect: expires_at as a number or as a bigint text', () => {
    expect(parseNotificationRow(row)).toEqual({ eventId: 'a1.pending', askId: 'a1' })
    const claimed = { ...row, holder: 'n1', ending: 'delivered' }
    expect(parseNotificationRow({ ...claimed, expires_at: 1_700_000_000_000 })).toEqual({
      eventId: 'a1.pending',
      askId: 'a1',
      holder: 'n1',
      expiresAt: 1_700_000_000_000,
      ending: 'delivered',
    })
    expect(parseNotificationRow({ ...claimed, expires_at: '1700000000000' }).expiresAt).toBe(
      1_700_000_000_000,
    )
  })

  it.each([
    ['no event id', { event_id: null }],
    ['an ask id that is not text', { ask_id: 7 }],
    ['a holder that is not text', { holder: 3 }],
    ['an expiry that is not a whole number', { expires_at: '1.5' }],
    ['an expiry of another type', { expires_at: true }],
    ['an ending the ledger does not know', { ending: 'lost' }],
  ])('refuses %s as a corrupt row', (_, change) => {
    expect(() => parseNotificationRow({ ...row, ...change })).toThrow(CorruptRowError)
  })
})
