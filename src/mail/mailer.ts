/**
 * Outgoing mail. With `LATCH_SMTP_URL` set, mail goes out over SMTP through nodemailer. Without it, on the
 * embedded default, each mail is kept in Latch's own outbox (the database, so every process sees it) and
 * printed to the log, so that sign-up and password reset work on one machine with no mail server.
 */
import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type { Config } from '../config.js';
import type { Storage } from '../storage/storage.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** 'smtp' sends for real; 'outbox' keeps mail in Latch (development). */
  readonly kind: 'smtp' | 'outbox';
  send(message: MailMessage): Promise<void>;
  close(): void;
}

export function createSmtpMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport(smtpUrl);
  return {
    kind: 'smtp',
    async send(message) {
      await transport.sendMail({ from, to: message.to, subject: message.subject, text: message.text });
    },
    close: () => transport.close(),
  };
}

/** How long outbox mail is kept: it exists to be read by the developer in front of the machine. */
export const OUTBOX_RETENTION_SECONDS = 86400;

export function createOutboxMailer(storage: Storage, log: FastifyBaseLogger): Mailer {
  return {
    kind: 'outbox',
    async send(message) {
      await storage.outbox.insert({ ...message, createdAt: new Date() });
      // Printing the mail (with its link) is the point of the outbox: there is no mail server to read it from.
      log.info({ event: 'mail_outbox', to: message.to, subject: message.subject }, `Mail kept in the local outbox (LATCH_SMTP_URL is not set):\n${message.text}`);
    },
    close: () => {},
  };
}

export function createMailer(config: Config, storage: Storage, log: FastifyBaseLogger): Mailer {
  return config.smtpUrl ? createSmtpMailer(config.smtpUrl, config.mailFrom) : createOutboxMailer(storage, log);
}
