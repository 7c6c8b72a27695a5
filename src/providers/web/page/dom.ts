/**
 * The page's only way to make DOM: every string becomes a text node
 * (`textContent`), never markup, so model-written text cannot inject HTML or
 * script whatever it holds.
 */

/** Attributes and listeners of {@link h}. `text` sets `textContent`. */
export interface ElementSpec {
  className?: string
  text?: string
  attrs?: Record<string, string | number | boolean | undefined>
  on?: Partial<{ [K in keyof HTMLElementEventMap]: (event: HTMLElementEventMap[K]) => void }>
}

/** A child: an element, a text (as a text node), or nothing. */
export type Child = Node | string | false | null | undefined

/** Creates an element; strings become text, attributes are set one by one, never parsed. */
export function h<TTag extends keyof HTMLElementTagNameMap>(
  tag: TTag,
  spec: ElementSpec = {},
  children: readonly Child[] = [],
): HTMLElementTagNameMap[TTag] {
  const element = document.createElement(tag)
  if (spec.className !== undefined) element.className = spec.className
  if (spec.text !== undefined) element.textContent = spec.text
  for (const [name, value] of Object.entries(spec.attrs ?? {})) {
    if (value === undefined || value === false) continue
    element.setAttribute(name, value === true ? '' : String(value))
  }
  for (const [type, listener] of Object.entries(spec.on ?? {})) {
    element.addEventListener(type, listener as EventListener)
  }
  for (const child of children) {
    if (child === false || child === null || child === undefined) continue
    element.append(typeof child === 'string' ? document.createTextNode(child) : child)
  }
  return element
}

/** Replaces an element's children. */
export function replaceChildren(parent: Element, children: readonly Child[]): void {
  parent.replaceChildren(
    ...children.flatMap((child) =>
      child === false || child === null || child === undefined
        ? []
        : [typeof child === 'string' ? document.createTextNode(child) : child],
    ),
  )
}
