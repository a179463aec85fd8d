/**
 * The confirmation a page shows after a form did what it said ("Your profile was saved."). role="status" has
 * screen readers announce it without moving focus (WCAG 4.1.3). Nothing when there is nothing to confirm.
 */
import type { ComponentChildren } from 'preact';

export function Notice({ children }: { children?: ComponentChildren }) {
  if (children === undefined || children === null || children === '' || children === false) return null;
  return (
    <p class="alert ok" role="status">
      {children}
    </p>
  );
}
