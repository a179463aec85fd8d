/** The only page that ever shows recovery codes: Latch keeps only keyed hashes of them. */
import { CopyableBlock } from '../components/field.js';
import { Layout } from '../layout.js';
import { asPage, useBrandName, useI18n } from '../page-context.js';

export interface RecoveryCodesPageProps {
  codes: readonly string[];
  /** 'enabled' right after two-step verification was turned on; 'regenerated' for a new set. */
  reason: 'enabled' | 'regenerated';
}

export const RecoveryCodesPage = asPage(function RecoveryCodesPage({ codes, reason }: RecoveryCodesPageProps) {
  const { t } = useI18n();
  const brand = useBrandName();
  return (
    <Layout title={t('recoveryCodes.title')} signedIn withCopyScript>
      <div class="card">
        <h1>{reason === 'enabled' ? t('recoveryCodes.enabled') : t('recoveryCodes.regenerated')}</h1>
        <p>
          {t('recoveryCodes.lead')}
          {reason === 'regenerated' ? ` ${t('recoveryCodes.oldGone')}` : ''}
        </p>
        <CopyableBlock id="recovery-codes" text={codes.join('\n')} label={t('recoveryCodes.label')} />
        <div class="secret-warning" role="note">
          <strong>{t('recoveryCodes.saveNow', { brand })}</strong> {t('recoveryCodes.keep')}
        </div>
        <div class="actions">
          <a class="button" href="/account/two-step">
            {t('recoveryCodes.saved')}
          </a>
        </div>
      </div>
    </Layout>
  );
});
