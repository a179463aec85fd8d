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
    // The button's words in the page's language (components/field.tsx), English when it gives none.
    var label = button.textContent;
    var copied = button.getAttribute('data-say-copied') || 'Copied';
    var selectIt = button.getAttribute('data-say-select') || 'Select and copy';
    button.addEventListener('click', function () {
      var text = 'value' in target && typeof target.value === 'string' ? target.value : target.textContent;
      navigator.clipboard.writeText(text).then(function () {
        button.textContent = copied;
        setTimeout(function () { button.textContent = label; }, 2000);
      }, function () {
        button.textContent = selectIt;
        if (target.select) target.select();
      });
    });
  });
})();
`;
