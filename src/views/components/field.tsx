/**
 * A labelled form field with its hint and its error right next to it, tied to the input with
 * aria-describedby and aria-invalid so that screen readers announce both (WCAG 3.3.1, 3.3.2).
 */
import type { JSX } from 'preact';
import { useI18n } from '../page-context.js';

export interface FieldProps {
  id: string;
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'url' | 'file';
  value?: string;
  hint?: string;
  error?: string | undefined;
  autocomplete?: string;
  required?: boolean;
  multiline?: boolean;
  accept?: string;
  autofocus?: boolean;
  inputmode?: JSX.HTMLAttributes['inputMode'];
  spellcheck?: boolean;
}

export function Field(props: FieldProps) {
  const hintId = props.hint ? `${props.id}-hint` : undefined;
  const errorId = props.error ? `${props.id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  const common = {
    id: props.id,
    name: props.name,
    required: props.required,
    autocomplete: props.autocomplete,
    autofocus: props.autofocus || !!props.error,
    spellcheck: props.spellcheck,
    'aria-describedby': describedBy,
    'aria-invalid': props.error ? ('true' as const) : undefined,
  };
  return (
    <div class={props.error ? 'field has-error' : 'field'}>
      <label for={props.id}>{props.label}</label>
      {props.hint ? (
        <p class="hint" id={hintId}>
          {props.hint}
        </p>
      ) : null}
      {props.multiline ? (
        <textarea {...common} rows={4}>
          {props.value ?? ''}
        </textarea>
      ) : (
        <input {...common} type={props.type ?? 'text'} value={props.type === 'password' || props.type === 'file' ? undefined : (props.value ?? '')} accept={props.accept} />
      )}
      {props.error ? (
        <p class="field-error" id={errorId}>
          {props.error}
        </p>
      ) : null}
    </div>
  );
}

export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

/** A value a developer will want to copy: the text, and a Copy button that only appears with JavaScript. */
export function CopyableValue({ id, value, label }: { id: string; value: string; label: string }) {
  const { t } = useI18n();
  return (
    <div class="copyable">
      <input id={id} type="text" readonly value={value} aria-label={label} spellcheck={false} class="mono" />
      <button type="button" class="secondary copy" data-copy={id} data-say-copied={t('copy.done')} data-say-select={t('copy.select')} hidden>
        {t('copy')}
      </button>
    </div>
  );
}

export function CopyableBlock({ id, text, label, wrap }: { id: string; text: string; label: string; wrap?: boolean }) {
  const { t } = useI18n();
  return (
    <div class={wrap ? 'copyable-block wrap' : 'copyable-block'}>
      {/* Unwrapped, a long line scrolls sideways: focusable so that a keyboard can scroll it too (WCAG 2.1.1). */}
      <pre id={id} aria-label={label} tabIndex={0}>
        {text}
      </pre>
      <button type="button" class="secondary copy" data-copy={id} data-say-copied={t('copy.done')} data-say-select={t('copy.select')} hidden>
        {t('copy')}
      </button>
    </div>
  );
}
