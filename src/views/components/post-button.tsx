/**
 * A form that is one button: it posts to `action` with the CSRF token and any hidden fields the action needs,
 * and works without JavaScript (sign out, end a session, remove an app's access, add a redirect URL).
 */
import type { ComponentChildren } from 'preact';
import { CsrfField } from './field.js';

export interface PostButtonProps {
  action: string;
  csrfToken: string;
  /** The button's text. */
  label: string;
  /** A fuller name for screen readers where several buttons share a label ("Sign out" on each session). */
  ariaLabel?: string;
  /** Hidden fields posted with it (which session, which app). */
  fields?: Readonly<Record<string, string>>;
  variant?: 'primary' | 'secondary';
  /** Beside a list item's text, instead of on a row of its own. */
  inline?: boolean;
  /** What the button does, shown above it. */
  children?: ComponentChildren;
}

export function PostButton({ action, csrfToken, label, ariaLabel, fields = {}, variant = 'secondary', inline, children }: PostButtonProps) {
  const button = (
    <button type="submit" class={variant === 'secondary' ? 'secondary' : undefined} aria-label={ariaLabel}>
      {label}
    </button>
  );
  return (
    <form method="post" action={action} class={inline ? 'inline-form' : undefined}>
      <CsrfField token={csrfToken} />
      {Object.entries(fields).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      {children}
      {inline ? button : <div class="actions">{button}</div>}
    </form>
  );
}
