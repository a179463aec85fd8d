/** The one stylesheet, served from /assets/latch.css (CSP allows only same-origin styles). */
export const STYLESHEET = `
:root {
  --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --paper: #ffffff; --wash: #f6f8fa;
  --accent: #0b5cd5; --accent-ink: #ffffff; --danger: #b42318; --ok: #1a7f37; --radius: 10px;
  color-scheme: light;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  line-height: 1.5; color: var(--ink); background: var(--wash);
}
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; min-height: 100vh; display: flex; flex-direction: column; }
header.site { background: var(--paper); border-bottom: 1px solid var(--line); padding: .75rem 1.25rem; display: flex; gap: 1rem; align-items: center; flex-wrap: wrap; }
header.site .brand { font-weight: 700; font-size: 1.15rem; color: var(--ink); text-decoration: none; letter-spacing: .02em; }
header.site nav { display: flex; gap: .75rem; flex-wrap: wrap; margin-left: auto; }
header.site nav a { color: var(--accent); }
main { width: 100%; max-width: 34rem; margin: 2rem auto; padding: 0 1rem; flex: 1; }
main.wide { max-width: 56rem; }
.card { background: var(--paper); border: 1px solid var(--line); border-radius: var(--radius); padding: 1.5rem; margin-bottom: 1.25rem; }
h1 { font-size: 1.5rem; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.25rem 0 .5rem; }
.card > h2:first-child { margin-top: 0; }
h3 { font-size: 1rem; margin: 1.25rem 0 .4rem; }
fieldset { border: 1px solid var(--line); border-radius: 6px; padding: .5rem 1rem .75rem; margin: 1rem 0 0; }
legend { font-weight: 600; padding: 0 .25rem; }
p.lead { color: var(--muted); margin-top: -.5rem; }
.app-banner { display: flex; align-items: center; gap: .6rem; }
.app-banner .app-logo { border-radius: 6px; object-fit: contain; flex: none; }
label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
input[type=text], input[type=email], input[type=password], input[type=url], textarea, select {
  width: 100%; padding: .6rem .7rem; font: inherit; border: 1px solid #8c959f; border-radius: 6px; background: var(--paper); color: var(--ink);
}
textarea { min-height: 6rem; }
.hint { color: var(--muted); font-size: .9rem; margin: .25rem 0 0; }
.field-error { color: var(--danger); font-size: .9rem; margin: .25rem 0 0; font-weight: 600; }
.alert { border-radius: 6px; padding: .75rem 1rem; margin: 0 0 1rem; border: 1px solid; }
.alert.error { color: var(--danger); border-color: #f1aeb5; background: #fff5f5; }
.alert.ok { color: var(--ok); border-color: #a6e3b5; background: #f0fff4; }
.actions { display: flex; gap: .75rem; margin-top: 1.5rem; flex-wrap: wrap; }
button, .button {
  font: inherit; font-weight: 600; padding: .6rem 1.2rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--accent); color: var(--accent-ink); cursor: pointer; text-decoration: none; display: inline-block;
}
button.secondary, .button.secondary { background: var(--paper); color: var(--accent); }
button.danger { background: var(--danger); border-color: var(--danger); }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
ul.scopes { padding-left: 1.25rem; }
ul.scopes li { margin: .25rem 0; overflow-wrap: anywhere; }
.client-name { font-weight: 700; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
/* A long address in a sentence (the playground's test callback) wraps rather than widening a phone's page; so do a check's values. */
p code { overflow-wrap: anywhere; }
pre { background: var(--wash); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.muted { color: var(--muted); }
footer.site { color: var(--muted); font-size: .85rem; text-align: center; padding: 1rem; }
input[type=file] { font: inherit; max-width: 100%; }
input[readonly] { background: var(--wash); }
.mono, textarea.mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
[aria-invalid=true] { border-color: var(--danger); border-width: 2px; }
.field { margin-bottom: .25rem; }
.skip { position: absolute; left: -9999px; top: 0; background: var(--paper); padding: .5rem 1rem; z-index: 10; }
.skip:focus { left: 1rem; }
header.site nav a { font-weight: 600; text-decoration: none; padding: .25rem .5rem; border-radius: 6px; }
header.site nav a:hover { background: var(--wash); text-decoration: underline; }
header.site nav a[aria-current='page'] { background: var(--wash); box-shadow: inset 0 -2px 0 var(--accent); }
.copyable { display: flex; gap: .5rem; align-items: center; }
.copyable input { flex: 1; min-width: 0; }
.copyable-block { position: relative; }
.copyable-block button.copy { position: absolute; top: .4rem; right: .4rem; padding: .25rem .6rem; font-size: .85rem; }
.copyable-block pre { padding-right: 4.5rem; white-space: pre; word-break: normal; overflow-x: auto; }
.copyable-block.wrap pre { white-space: pre-wrap; word-break: break-all; }
.event form { display: block; margin-top: .75rem; }
.mail h2 { margin-top: 0; }
/* Mail text wraps at words, like a mail client; a link stays whole on its line (the block scrolls instead). */
.mail pre { word-break: normal; overflow-wrap: normal; }
.mail pre a { white-space: nowrap; }
.secret-warning { border-left: 4px solid #b54708; background: #fffaeb; color: #7a2e0e; padding: .75rem 1rem; border-radius: 6px; margin: 1rem 0; }
.profile { display: flex; gap: 1rem; align-items: center; }
img.avatar { width: 64px; height: 64px; border-radius: 50%; object-fit: cover; border: 1px solid var(--line); background: var(--wash); flex: none; }
.avatar.placeholder { width: 64px; height: 64px; border-radius: 50%; display: grid; place-items: center; background: #dbe7fb; color: #0b3d91; font-weight: 700; font-size: 1.5rem; flex: none; }
img.logo { width: 40px; height: 40px; border-radius: 8px; object-fit: contain; border: 1px solid var(--line); vertical-align: middle; margin-right: .5rem; }
.badge { display: inline-block; font-size: .8rem; font-weight: 600; padding: .05rem .5rem; border-radius: 999px; border: 1px solid var(--line); background: var(--wash); color: var(--muted); white-space: nowrap; }
.badge.ok { color: var(--ok); border-color: #a6e3b5; background: #f0fff4; }
.badge.warn { color: #7a2e0e; border-color: #fedf89; background: #fffaeb; }
.table-scroll { overflow-x: auto; }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain > li { border-bottom: 1px solid var(--line); padding: .75rem 0; display: flex; gap: 1rem; justify-content: space-between; align-items: center; flex-wrap: wrap; }
ul.plain > li:last-child { border-bottom: 0; }
.inline-form { display: inline; margin: 0; }
.danger-zone { border-color: #f1aeb5; }
.checkbox { display: flex; gap: .5rem; align-items: flex-start; font-weight: 400; }
.checkbox input { margin-top: .35rem; }
.event { border: 1px solid var(--line); border-radius: 6px; padding: .75rem; margin: .5rem 0; }
.event dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem .75rem; margin: .5rem 0 0; }
/* The admin console (admin/): its section links, and an account's or a client's facts as rows of term and value. */
nav.admin-nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0 0 1.25rem; }
nav.admin-nav a { font-weight: 600; padding: .25rem .5rem; border-radius: 6px; }
nav.admin-nav a[aria-current='page'] { background: var(--wash); box-shadow: inset 0 -2px 0 var(--accent); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
dl.facts dd ul { margin: 0; padding-left: 1.25rem; }
.event dt { color: var(--muted); }
.event dd { margin: 0; word-break: break-all; }
.mail { border: 1px solid var(--line); border-radius: 6px; padding: .75rem; margin: .75rem 0; }
button:disabled { opacity: .6; cursor: not-allowed; }
/* A button that reads as a link, for a form that must POST (CSRF) but sits in running text. */
button.link { background: none; border: none; padding: 0; color: var(--accent); text-decoration: underline; font: inherit; cursor: pointer; }
.send-back { font-size: 1.05rem; }
/* Branding and ways on (issue 19 items 2, 6): the operator's logo beside the name, footer links, an error page's exits. */
header.site .brand { display: inline-flex; align-items: center; gap: .5rem; }
header.site .brand-logo { height: 28px; width: auto; max-width: 160px; object-fit: contain; }
footer.site { display: flex; gap: .5rem 1.25rem; justify-content: center; flex-wrap: wrap; }
footer.site nav { display: flex; gap: 1rem; flex-wrap: wrap; }
footer.site a { color: var(--muted); }
ul.ways-on { list-style: none; padding: 0; margin: 1rem 0; display: flex; flex-wrap: wrap; gap: .5rem 1.25rem; }
ul.ways-on a { font-weight: 600; }
/* The account page (issue 19 item 3): sections to find, a file input that looks like the other buttons. */
h1.page-title { margin-bottom: .5rem; }
nav.section-nav { display: flex; flex-wrap: wrap; gap: .25rem 1rem; margin: 0 0 1.25rem; }
nav.section-nav a { font-weight: 600; }
.subsection { border-top: 1px solid var(--line); margin-top: 1.25rem; padding-top: .25rem; }
.card > h2 + .subsection { border-top: 0; margin-top: 0; padding-top: 0; }
.card > h2 + .subsection > h3:first-child { margin-top: .5rem; }
/* A session or an app on the left, its button on the right; the text wraps before the button does. */
#sessions ul.plain > li > div, #apps ul.plain > li > div { flex: 1 1 18rem; min-width: 0; }
/* A passkey's remove form asks for the password or a code: a row of its own under the passkey's name. */
form.passkey-remove { flex: 1 1 100%; }
form.passkey-remove .actions { margin-top: .75rem; }
.profile-name { font-size: 1.15rem; font-weight: 700; margin: 0; }
/* A long email address wraps inside its column on a phone instead of running under the card's edge. */
.profile > div { min-width: 0; overflow-wrap: anywhere; }
.profile .muted { margin: .15rem 0 0; }
ul.facts { padding-left: 1.25rem; margin: .25rem 0; }
input[type=file] { padding: .35rem; border: 1px dashed #8c959f; border-radius: 6px; background: var(--wash); width: 100%; }
input[type=file]::file-selector-button {
  font: inherit; font-weight: 600; margin-right: .75rem; padding: .45rem 1rem; border-radius: 6px; border: 1px solid var(--accent);
  background: var(--paper); color: var(--accent); cursor: pointer;
}
input[type=file]:hover::file-selector-button { background: var(--wash); }
@media (max-width: 480px) {
  main { margin: 1rem auto; } .card { padding: 1rem; } .actions { flex-direction: column; } .actions button, .actions .button { width: 100%; text-align: center; }
  .copyable { flex-direction: column; align-items: stretch; }
  .event dl { grid-template-columns: 1fr; }
  dl.facts { grid-template-columns: 1fr; gap: .1rem; } dl.facts dd { margin-bottom: .5rem; }
  .event dt { margin-top: .25rem; }
  .copyable-block { display: flex; flex-direction: column; }
  .copyable-block button.copy { position: static; order: -1; align-self: flex-end; margin-bottom: .25rem; }
  .copyable-block pre { padding-right: .75rem; }
}
/* Developer console (issue 19 item 4, issue 22 item 3): URLs typed in monospace; the playground's checks. */
#redirect_uris, #post_logout_redirect_uris, #backchannel_logout_uri { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
ol.steps > li { margin: 1rem 0; }
ul.checks { list-style: none; padding: 0; }
ul.checks li { margin: .25rem 0; overflow-wrap: anywhere; }
.check-passed { color: #146c2e; font-weight: 600; }
.check-failed { color: #b3261e; font-weight: 600; }
`;
