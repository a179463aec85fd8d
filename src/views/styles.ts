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
p.lead { color: var(--muted); margin-top: -.5rem; }
label { display: block; font-weight: 600; margin: 1rem 0 .25rem; }
input[type=text], input[type=email], input[type=password], input[type=url], textarea {
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
ul.scopes li { margin: .25rem 0; }
.client-name { font-weight: 700; }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .9rem; }
pre { background: var(--wash); border: 1px solid var(--line); border-radius: 6px; padding: .75rem; overflow-x: auto; white-space: pre-wrap; word-break: break-all; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; padding: .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.muted { color: var(--muted); }
footer.site { color: var(--muted); font-size: .85rem; text-align: center; padding: 1rem; }
@media (max-width: 480px) { main { margin: 1rem auto; } .card { padding: 1rem; } .actions { flex-direction: column; } .actions button { width: 100%; } }
`;
