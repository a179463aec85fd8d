import type { AuditLog } from '../audit/audit-log.js';
import type { Config } from '../config.js';
import type { Mailer } from '../mail/mailer.js';
import type { SessionEndings } from '../session/session-endings.js';
import type { Storage } from '../storage/storage.js';
import type { AttemptCounter } from './sign-in-throttle.js';

/** What the account pages (sign-up, verification, reset, account, avatars) need, passed as arguments. */
export interface AccountPageDeps {
  storage: Storage;
  config: Config;
  mailer: Mailer;
  attemptCounter: AttemptCounter;
  /** Told when sessions end (session/session-endings.ts). */
  sessionEndings: SessionEndings;
  /** Where security-relevant events are recorded (audit/audit-log.ts). */
  audit: AuditLog;
}
