/**
 * The command's own colours (src/cli/style.ts, kept apart so that the web
 * demo does not load the terminal's peer) look exactly like the terminal
 * provider's, for every way colours are decided.
 */
import { describe, expect, it } from 'vitest'
import { commandStyle } from '../../src/cli/style.js'
import { createStyle, supportsColor } from '../../src/providers/terminal/index.js'

const streams = {
  pipe: {},
  tty: { isTTY: true },
  'tty without colours': { isTTY: true, hasColors: () => false },
}
const environments = [{}, { NO_COLOR: '1' }, { FORCE_COLOR: '1' }, { FORCE_COLOR: '0' }]

describe('the command style', () => {
  for (const [name, stream] of Object.entries(streams)) {
    it.each(environments)(`matches the terminal's on a ${name} with %j`, (env) => {
      const mine = commandStyle(stream, env)
      const terminal = createStyle(supportsColor(stream, env))
      expect(mine.colors).toBe(terminal.colors)
      for (const look of [
        'bold',
        'dim',
        'accent',
        'success',
        'warning',
        'danger',
        'inverse',
      ] as const) {
        expect(mine[look]('text'), look).toBe(terminal[look]('text'))
        expect(mine[look](''), look).toBe(terminal[look](''))
      }
    })
  }
})
