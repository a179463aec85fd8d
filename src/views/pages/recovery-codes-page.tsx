/** The only page that ever shows recovery codes: Latch keeps only keyed hashes of them. */
import { CopyableBlock } from '../components/field.js';
import { Layout } from '../layout.js';
import { BrandName } from '../page-context.js';

export interface RecoveryCodesPageProps {
  codes: readonly string[];
  /** 'enabled' right after two-step verification was turned on; 'regenerated' for a new set. */
  reason: 'enabled' | 'regenerated';
}

export function RecoveryCodesPage({ codes, reason }: RecoveryCodesPageProps) {
  return (
    <Layout title="Your recovery codes" signedIn withCopyScript>
      <div class="card">
        <h1>{reason === 'enabled' ? 'Two-step verification is on' : 'Your new recovery codes'}</h1>
        <p>
          If you lose your phone or your passkey, sign in with one of these codes instead of your second step. Each code works once.
          {reason === 'regenerated' ? ' Your old codes no longer work.' : ''}
        </p>
        <CopyableBlock id="recovery-codes" text={codes.join('\n')} label="Recovery codes" />
        <div class="secret-warning" role="note">
          <strong>Save these codes now: this is the only time <BrandName /> shows them.</strong> Print them or keep them in a password manager, away
          from your phone.
        </div>
        <div class="actions">
          <a class="button" href="/account/two-step">
            I have saved my recovery codes
          </a>
        </div>
      </div>
    </Layout>
  );
}
