import { describe, expect, it } from 'vitest'
import { decodeReferences, safeHref } from '../../../src/providers/web/page/markdown.js'
import { remainingTime } from '../../../src/providers/web/page/deadline.js'

describe('the plan renderer’s rules, without a browser', () => {
  it('offers only absolute http and https links', () => {
    expect(safeHref('https://example.com/a?b=1&amp;c=2')).toBe('https://example.com/a?b=1&c=2')
    expect(safeHref('http://example.com')).toBe('http://example.com/')
    for (const href of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'java&#115;cript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox',
      'file:///etc/passwd',
      '/relative',
      '//example.com',
      'mailto:a@example.com',
    ]) {
      expect(safeHref(href), href).toBeUndefined()
    }
  })

  it('resolves the character references marked leaves in text, and only those', () => {
    expect(decodeReferences('a &amp; b &lt;c&gt; &quot;d&quot; &#39;e&#x27; &nbsp;')).toBe(
      'a & b <c> "d" \'e\' \u00a0',
    )
    expect(decodeReferences('&copy; &unknown; &#0; &#xD800; &')).toBe(
      '&copy; &unknown; &#0; &#xD800; &',
    )
  })
})

describe('the countdown', () => {
  const minute = 60_000
  it('reads minutes and seconds, then hours', () => {
    expect(remainingTime(10 * minute, 0, 0).text).toBe('10:00 left')
    expect(remainingTime(10 * minute, 0, 5 * minute + 500).text).toBe('5:00 left')
    expect(remainingTime(125 * minute, 0, 0).text).toBe('2 h 05 min left')
  })

  it('warns in the last tenth of the time or the last minute, then says time is up', () => {
    expect(remainingTime(100 * minute, 0, 80 * minute).warning).toBe(false)
    expect(remainingTime(100 * minute, 0, 91 * minute).warning).toBe(true)
    expect(remainingTime(5 * minute, 0, 4 * minute + 1).warning).toBe(true)
    expect(remainingTime(5 * minute, 0, 5 * minute)).toEqual({
      text: 'Time is up',
      warning: true,
      expired: true,
    })
  })
})
