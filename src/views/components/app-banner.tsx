import { useI18n } from '../page-context.js';

/** "to continue to Orbit Notes", with the app's logo and homepage when it registered them (issue 19 item 1). */
export interface AppBannerProps {
  app: { name: string; logoUrl: string | null; homepageUrl: string | null } | null | undefined;
}

export function AppBanner({ app }: AppBannerProps) {
  const { rich } = useI18n();
  if (!app) return null;
  return (
    <p class="lead app-banner">
      {app.logoUrl ? <img src={app.logoUrl} alt="" width={32} height={32} class="app-logo" /> : null}
      <span>
        {rich('appBanner.continueTo', { app: <span class="client-name">{app.name}</span> })}
        {app.homepageUrl ? (
          <>
            {' '}
            (<a href={app.homepageUrl} rel="noopener noreferrer">{new URL(app.homepageUrl).host}</a>)
          </>
        ) : null}
      </span>
    </p>
  );
}
