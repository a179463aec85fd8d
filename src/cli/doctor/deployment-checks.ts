/**
 * The stores and services beside the database: Redis for counters shared by several processes, and SMTP for
 * mail. Pure: probes.ts connects, these rules judge what it found.
 */
import type { Finding } from './finding.js';

/** The outcome of connecting to a service: reachable, or why not, in words (no credentials). */
export type Reachability = { reachable: true } | { reachable: false; reason: string; refusedLogin?: boolean };

export interface RedisSituation {
  /** Latch processes sharing this installation (`--workers`, LATCH_WORKERS; see doctor-command.ts). */
  processes: number;
  dialect: 'sqlite' | 'postgres';
  /** host:port of LATCH_REDIS_URL, or null when unset. */
  redisAddress: string | null;
  redis: Reachability | null;
}

export function checkRedis({ processes, dialect, redisAddress, redis }: RedisSituation): Finding[] {
  if (redisAddress === null) {
    if (processes > 1) {
      return [
        {
          check: 'redis',
          level: 'warning',
          title: `${processes} processes and no LATCH_REDIS_URL: sign-in, sign-up and mail limits and the rate limits are counted in each process, so together they allow ${processes} times the configured limits`,
          fix: 'Set LATCH_REDIS_URL=redis://… (the same for every process) so that they share their counts.',
        },
      ];
    }
    if (dialect === 'postgres') {
      return [
        {
          check: 'redis',
          level: 'note',
          title: 'No LATCH_REDIS_URL: limits are counted per process, which is right for one process',
          fix: 'If several Latch instances share this PostgreSQL (other machines), set LATCH_REDIS_URL in every one of them.',
        },
      ];
    }
    return [];
  }
  if (redis?.reachable === false) {
    return [
      {
        check: 'redis',
        level: 'warning',
        title: `Redis at ${redisAddress} does not answer (${redis.reason}): Latch serves, but counts per process until it is back`,
        fix: 'Check that Redis runs and that the host, port and password of LATCH_REDIS_URL are right.',
      },
    ];
  }
  return [{ check: 'redis', level: 'ok', title: `Redis at ${redisAddress} answers`, fix: null }];
}

export interface MailSituation {
  /** host:port of LATCH_SMTP_URL, or null when unset. */
  smtpAddress: string | null;
  smtp: Reachability | null;
  /** A local issuer or LATCH_DEV_MODE: the outbox is shown at /dev/outbox (mail/outbox-routes.ts). */
  development: boolean;
}

export function checkMail({ smtpAddress, smtp, development }: MailSituation): Finding[] {
  if (smtpAddress === null) {
    return development
      ? [
          {
            check: 'smtp',
            level: 'note',
            title: 'LATCH_SMTP_URL is not set: mail is kept in the local outbox (/dev/outbox) and printed to the log',
            fix: 'Fine for development; set LATCH_SMTP_URL=smtps://user:password@smtp.example.com:465 before real people sign up.',
          },
        ]
      : [
          {
            check: 'smtp',
            level: 'problem',
            title: 'LATCH_SMTP_URL is not set on a production issuer: email confirmations and password resets never reach anyone',
            fix: 'Set LATCH_SMTP_URL=smtps://user:password@smtp.example.com:465 (or smtp://… with STARTTLS) to your mail provider.',
          },
        ];
  }
  if (smtp?.reachable === false) {
    return [
      {
        check: 'smtp',
        level: 'problem',
        title: smtp.refusedLogin
          ? `The SMTP server ${smtpAddress} refused the login (${smtp.reason}): no mail goes out`
          : `Cannot reach the SMTP server ${smtpAddress} (${smtp.reason}): no mail goes out`,
        fix: smtp.refusedLogin
          ? 'Check the user name and password in LATCH_SMTP_URL (percent-encoded).'
          : 'Check the host and port of LATCH_SMTP_URL (465 for smtps://, 587 or 25 for smtp://) and that this machine may connect to it.',
      },
    ];
  }
  return [{ check: 'smtp', level: 'ok', title: `The SMTP server ${smtpAddress} accepts connections`, fix: null }];
}
