import { describe, expect, it } from 'vitest'
import { CorruptRowError, parseRows } from '../../src/protocol/internal.js'

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
