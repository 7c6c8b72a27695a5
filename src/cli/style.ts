import type { TerminalStyle } from '../providers/terminal/index.js'

/**
 * The command's own colours for the lines it prints (the agent's steps, the
 * console's address). The terminal provider has the same looks, but its entry
 * point loads its peer `marked`, and `askseam --web` must run where only `ws`
 * and `zod` are installed. Typed as the terminal's style, so the two cannot
 * drift apart.
 */
export function commandStyle(
  output: unknown,
  env: Readonly<Record<string, string | undefined>> = process.env,
): TerminalStyle {
  const colors = colorsFor(output, env)
  const wrap =
    (open: number, close: number) =>
    (text: string): string =>
      colors && text !== '' ? `\u001b[${open}m${text}\u001b[${close}m` : text
  return {
    colors,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    accent: wrap(36, 39),
    success: wrap(32, 39),
    warning: wrap(33, 39),
    danger: wrap(31, 39),
    inverse: wrap(7, 27),
  }
}

/** `NO_COLOR` turns colours off and `FORCE_COLOR` on, as in the terminal provider; else a TTY decides. */
function colorsFor(output: unknown, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false'
  const stream = output as { isTTY?: boolean; hasColors?: () => boolean } | null | undefined
  if (stream?.isTTY !== true) return false
  return typeof stream.hasColors === 'function' ? stream.hasColors() : true
}
