/** A plan's markdown as terminal lines, through marked's real lexer. */
import { lexer } from 'marked'
import { describe, expect, it } from 'vitest'
import { formatMarkdown } from '../../../src/providers/terminal/markdown.js'
import { createStyle } from '../../../src/providers/terminal/style.js'
import { widthOf } from '../../../src/providers/terminal/text.js'

const plan = [
  '# Roll out v2.4.0',
  '',
  'Ship to **eu-west-1**; see [the runbook](https://runbooks.example.com/checkout).',
  '',
  '1. Build with `cosign`',
  '2. Gates:',
  '   - Smoke tests',
  '- [x] done',
  '',
  '```',
  'kubectl rollout undo',
  '```',
  '',
  '<img src=x onerror=alert(1)>Raw \u001b[2Jhtml \u001b]0;title\u0007here',
].join('\n')

const lex = (text: string) => lexer(text, { gfm: true })

describe('formatMarkdown', () => {
  it('renders headings bold, lists with bullets and numbers, code dim, links as text and address', () => {
    const lines = formatMarkdown(lex, plan, createStyle(false), 60).map((line) => line.plain)
    expect(lines).toContain('Roll out v2.4.0')
    expect(lines).toContain('1. Build with cosign')
    expect(lines).toContain('   • Smoke tests')
    expect(lines).toContain('• [x] done')
    expect(lines).toContain('  kubectl rollout undo')
    expect(lines.join(' ')).toContain('see the runbook (https://runbooks.example.com/checkout).')
    const styled = formatMarkdown(lex, plan, createStyle(true), 60).map((line) => line.styled)
    // Styles go word by word (so a wrapped line never leaves one open).
    expect(styled[0]).toBe(
      '\u001b[1mRoll\u001b[22m \u001b[1mout\u001b[22m \u001b[1mv2.4.0\u001b[22m',
    )
    expect(styled).toContain('\u001b[2m  kubectl rollout undo\u001b[22m')
    expect(styled.join('\n')).toContain('\u001b[1meu-west-1\u001b[22m')
  })

  it('lets no escape sequence, control character or HTML tag from the plan through', () => {
    const lines = formatMarkdown(lex, plan, createStyle(false), 60)
    const text = lines.map((line) => line.styled).join('\n')
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
    expect(text).not.toContain('<img')
    expect(text).toContain('Raw html here')
  })

  it('fits every line to the width, breaking words longer than a line', () => {
    const long = `A ${'very'.repeat(30)} long word and [a link](https://example.com/${'x'.repeat(80)})`
    for (const width of [20, 38, 60]) {
      const lines = formatMarkdown(lex, `${plan}\n\n${long}`, createStyle(false), width)
      for (const line of lines) expect(widthOf(line.plain)).toBeLessThanOrEqual(width)
    }
  })
})
