/**
 * The one script, served from /assets/latch.js (CSP: script-src 'self', no inline script). It only adds copy
 * buttons; without it every value stays selectable and every form still works.
 */
export const SCRIPT = `
(function () {
  if (!navigator.clipboard) return;
  document.querySelectorAll('button.copy[data-copy]').forEach(function (button) {
    var target = document.getElementById(button.getAttribute('data-copy'));
    if (!target) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      var text = 'value' in target && typeof target.value === 'string' ? target.value : target.textContent;
      navigator.clipboard.writeText(text).then(function () {
        button.textContent = 'Copied';
        setTimeout(function () { button.textContent = 'Copy'; }, 2000);
      }, function () {
        button.textContent = 'Select and copy';
        if (target.select) target.select();
      });
    });
  });
})();
`;
