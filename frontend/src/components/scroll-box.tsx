import type { ComponentProps } from "react";

/** Preformatted text in a box that scrolls; it takes keyboard focus so keyboard users can scroll it. */
export function ScrollBox(props: ComponentProps<"pre">) {
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1)
  return <pre tabIndex={0} {...props} />;
}
