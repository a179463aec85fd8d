import { formatTime } from '../format.js';
import { Layout } from '../layout.js';

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

/** Development only: the mails Latch kept because no SMTP server is configured. */
export function OutboxPage({ messages, issuer, signedIn }: OutboxPageProps) {
  return (
    <Layout title="Development outbox" wide signedIn={signedIn}>
      <div class="card">
        <h1>Development outbox</h1>
        <p class="lead">
          LATCH_SMTP_URL is not set, so Latch keeps its mails here (and prints them to its log) instead of sending them. This page exists only
          on a local Latch without SMTP. Newest first; kept for a day.
        </p>
        {messages.length === 0 ? <p class="muted">No mail yet.</p> : null}
        {messages.map((message) => (
          <article class="mail" aria-label={`Mail to ${message.to}: ${message.subject}`}>
            <h2>{message.subject}</h2>
            <p class="muted">
              To <strong>{message.to}</strong> · {formatTime(message.createdAt)}
            </p>
            <MailText text={message.text} issuer={issuer} />
          </article>
        ))}
      </div>
    </Layout>
  );
}
