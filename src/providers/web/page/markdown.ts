/**
 * Markdown, as the model writes it in a plan, turned into DOM nodes. `marked`
 * only tokenises; every node is made here with `createElement` and
 * `textContent`, so nothing is ever parsed as HTML: raw HTML in the source is
 * shown as the text it is, images as their description, and a link is an
 * anchor only for http(s) (opened in a new tab, with no opener or referrer).
 */
import { lexer } from 'marked'
import type { Token, Tokens } from 'marked'
import { h } from './dom.js'

const NAMED_REFERENCES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
}

/**
 * Resolves the character references marked leaves in text (it escapes them
 * only when rendering to HTML): the five XML ones, `&nbsp;`, and numeric ones.
 * Others stay as written, which is what the reader typed.
 */
export function decodeReferences(text: string): string {
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name.startsWith('#')) {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1))
      return code > 0 && code <= 0x10ffff && (code < 0xd800 || code > 0xdfff)
        ? String.fromCodePoint(code)
        : whole
    }
    return NAMED_REFERENCES[name.toLowerCase()] ?? whole
  })
}

/** The link target, when it is one a console may offer: absolute http or https. */
export function safeHref(href: string): string | undefined {
  try {
    const url = new URL(decodeReferences(href).trim())
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined
  } catch {
    return undefined
  }
}

function inline(tokens: readonly Token[] | undefined): Node[] {
  return (tokens ?? []).map(inlineNode)
}

function inlineNode(token: Token): Node {
  switch (token.type) {
    case 'strong':
      return h('strong', {}, inline((token as Tokens.Strong).tokens))
    case 'em':
      return h('em', {}, inline((token as Tokens.Em).tokens))
    case 'del':
      return h('del', {}, inline((token as Tokens.Del).tokens))
    case 'codespan':
      return h('code', { text: (token as Tokens.Codespan).text })
    case 'br':
      return h('br')
    case 'escape':
      return document.createTextNode((token as Tokens.Escape).text)
    case 'link': {
      const link = token as Tokens.Link
      const href = safeHref(link.href)
      const children = inline(link.tokens)
      if (href === undefined) return h('span', { className: 'md-link-text' }, children)
      return h(
        'a',
        { attrs: { href, target: '_blank', rel: 'noopener noreferrer', title: href } },
        children,
      )
    }
    case 'image': {
      // Never fetched: the description stands in for the picture.
      const image = token as Tokens.Image
      return h('span', { className: 'md-image', text: `[image: ${decodeReferences(image.text)}]` })
    }
    case 'checkbox':
      return h('span', {
        className: 'md-task',
        text: (token as Tokens.Checkbox).checked ? '☑ ' : '☐ ',
      })
    case 'text': {
      const text = token as Tokens.Text
      if (text.tokens !== undefined && text.tokens.length > 0) {
        const fragment = document.createDocumentFragment()
        fragment.append(...inline(text.tokens))
        return fragment
      }
      return document.createTextNode(
        'autolink' in text || text.escaped === true ? text.text : decodeReferences(text.text),
      )
    }
    default:
      // Raw HTML and anything marked adds later: its source, as text.
      return document.createTextNode(token.raw)
  }
}

function block(token: Token): Node | undefined {
  switch (token.type) {
    case 'space':
    case 'def':
      return undefined
    case 'heading': {
      const heading = token as Tokens.Heading
      // The plan sits under the card's h2: its own headings start at h3.
      const level = Math.min(6, Math.max(3, heading.depth + 2)) as 3 | 4 | 5 | 6
      return h(`h${level}`, { className: 'md-heading' }, inline(heading.tokens))
    }
    case 'paragraph':
      return h('p', {}, inline((token as Tokens.Paragraph).tokens))
    case 'text': {
      const text = token as Tokens.Text
      return h(
        'p',
        {},
        text.tokens === undefined ? [decodeReferences(text.text)] : inline(text.tokens),
      )
    }
    case 'list': {
      const list = token as Tokens.List
      const items = list.items.map((item) =>
        h(
          'li',
          item.task ? { className: 'md-task-item' } : {},
          item.tokens.flatMap((child) => {
            // A tight list's items hold bare text: keep it inline rather than one paragraph each.
            if (!item.loose && child.type === 'text') return [inlineNode(child)]
            const node = block(child)
            return node === undefined ? [] : [node]
          }),
        ),
      )
      return list.ordered
        ? h(
            'ol',
            { attrs: { start: list.start === '' || list.start === 1 ? undefined : list.start } },
            items,
          )
        : h('ul', {}, items)
    }
    case 'code':
      return h('pre', { className: 'md-code' }, [h('code', { text: (token as Tokens.Code).text })])
    case 'blockquote':
      return h('blockquote', {}, blocks((token as Tokens.Blockquote).tokens))
    case 'hr':
      return h('hr')
    case 'table': {
      const table = token as Tokens.Table
      const cell = (tag: 'th' | 'td', cell: Tokens.TableCell) => h(tag, {}, inline(cell.tokens))
      return h('div', { className: 'md-table' }, [
        h('table', {}, [
          h('thead', {}, [
            h(
              'tr',
              {},
              table.header.map((head) => cell('th', head)),
            ),
          ]),
          h(
            'tbody',
            {},
            table.rows.map((row) =>
              h(
                'tr',
                {},
                row.map((data) => cell('td', data)),
              ),
            ),
          ),
        ]),
      ])
    }
    case 'html':
      return h('p', { className: 'md-raw', text: token.raw.replace(/\n+$/, '') })
    default:
      return h('p', { text: token.raw })
  }
}

function blocks(tokens: readonly Token[]): Node[] {
  return tokens.flatMap((token) => {
    const node = block(token)
    return node === undefined ? [] : [node]
  })
}

/** The plan's markdown as DOM nodes, ready to append; never HTML. */
export function renderMarkdown(source: string): Node[] {
  return blocks(lexer(source, { gfm: true }))
}
