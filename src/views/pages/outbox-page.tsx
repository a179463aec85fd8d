import { Layout } from '../layout.js';
import { asPage, useI18n } from '../page-context.js';

/** One kept mail, as the page shows it. */
export interface OutboxMessageView {
  to: string;
  subject: string;
  text: string;
  createdAt: Date;
}

export interface OutboxPageProps {
  messages: OutboxMessageView[];
  /** Links to this origin are made clickable; anything else stays text. */
  issuer: string;
  signedIn: boolean;
}

function MailText({ text, issuer }: { text: string; issuer: string }) {
  return (
    // Focusable: a long link can make the block scroll sideways, and a keyboard must reach it (WCAG 2.1.1).
    <pre tabIndex={0}>
      {text.split('\n').map((line) => (
        <>
          {line.startsWith(`${issuer}/`) ? <a href={line}>{line}</a> : line}
          {'\n'}
        </>
      ))}
    </pre>
  );
}

/**
 * Development only: the mails Latch kept because no SMTP server is configured. The page is in the reader's
 * language; each mail stays in the language it was written in (that of the page whose action sent it).
 */
export const OutboxPage = asPage(function OutboxPage({ messages, issuer, signedIn }: OutboxPageProps) {
  const { t, rich, dateTime } = useI18n();
  return (
    <Layout title={t('outbox.title')} wide signedIn={signedIn}>
      <div class="card">
        <h1>{t('outbox.title')}</h1>
        <p class="lead">{t('outbox.lead')}</p>
        {messages.length === 0 ? <p class="muted">{t('outbox.none')}</p> : null}
        {messages.map((message) => (
          <article class="mail" aria-label={t('outbox.mailLabel', { to: message.to, subject: message.subject })}>
            <h2>{message.subject}</h2>
            <p class="muted">{rich('outbox.to', { to: <strong>{message.to}</strong>, time: dateTime(message.createdAt) })}</p>
            <MailText text={message.text} issuer={issuer} />
          </article>
        ))}
      </div>
    </Layout>
  );
});
