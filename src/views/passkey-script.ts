/**
 * The passkey script, served from /assets/passkeys.js (CSP: script-src 'self', no inline script). It drives the
 * browser's own WebAuthn API (navigator.credentials.create/get) for the buttons that carry
 * `data-passkey="register|sign-in|second-factor"`: fetch the options (JSON, with the page's CSRF token as `_csrf`), run the
 * ceremony, post the result, follow the redirect the answer names. Buttons stay hidden without JavaScript, and
 * say plainly when the browser cannot use passkeys. base64url <-> ArrayBuffer by hand: the JSON helpers
 * (PublicKeyCredential.parseCreationOptionsFromJSON) are not in every browser yet.
 *
 * A button with `data-proof-input` (adding a passkey) sends that field's value as `proof` with the request for
 * the options; a refused proof (error invalid_proof, or slow_down once throttled) is shown beside the field as a
 * server-rendered field error is (views/components/field.tsx: tied with aria-describedby and aria-invalid, the
 * field focused), in the page's words from the button's data-say-proof-* attributes.
 *
 * Conditional UI (WebAuthn Level 3 §5.1.4.1, mediation "conditional"): on a page with a field whose autocomplete
 * names "webauthn" and a sign-in button, where the browser says it can, a passkey request waits in the
 * background from the moment the page loads, and the browser offers the passkeys in that field's autofill; one
 * picked there signs in as the button would. Pressing the button cancels the waiting request first (a browser
 * runs one WebAuthn request at a time).
 */
export const PASSKEY_SCRIPT = `
(function () {
  function toBytes(text) {
    var base64 = text.replace(/-/g, '+').replace(/_/g, '/');
    while (base64.length % 4) base64 += '=';
    var binary = atob(base64);
    var bytes = new Uint8Array(binary.length);
    for (var i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes.buffer;
  }
  function toText(buffer) {
    var bytes = new Uint8Array(buffer);
    var binary = '';
    for (var i = 0; i < bytes.length; i++) binary += String.fromCharCode(bytes[i]);
    return btoa(binary).replace(/\\+/g, '-').replace(/\\//g, '_').replace(/=+$/, '');
  }
  function credentialList(list) {
    return (list || []).map(function (c) { return { id: toBytes(c.id), type: c.type || 'public-key', transports: c.transports }; });
  }
  function post(url, csrf, body) {
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Object.assign({ _csrf: csrf }, body)),
    }).then(function (response) {
      return response.json().then(function (data) {
        if (!response.ok) {
          var error = new Error(data.error_description || 'Something went wrong. Try again.');
          error.code = data.error;
          throw error;
        }
        return data;
      });
    });
  }
  function fieldError(input, text) {
    var id = input.id + '-error';
    var shown = document.getElementById(id);
    var field = input.closest('.field') || input.parentNode;
    var others = (input.getAttribute('aria-describedby') || '').split(' ').filter(function (name) { return name && name !== id; });
    if (text === null) {
      if (shown) shown.remove();
      field.classList.remove('has-error');
      input.removeAttribute('aria-invalid');
      if (others.length) input.setAttribute('aria-describedby', others.join(' ')); else input.removeAttribute('aria-describedby');
      return;
    }
    if (!shown) {
      shown = document.createElement('p');
      shown.className = 'field-error';
      shown.id = id;
      field.appendChild(shown);
    }
    shown.textContent = text;
    field.classList.add('has-error');
    input.setAttribute('aria-invalid', 'true');
    input.setAttribute('aria-describedby', others.concat(id).join(' '));
    // A password is not left in the field after a refusal, as a re-rendered form would not; focus reads the error.
    input.value = '';
    input.focus();
  }
  function registration(credential) {
    return {
      id: credential.id, rawId: toText(credential.rawId), type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      clientExtensionResults: credential.getClientExtensionResults(),
      response: {
        clientDataJSON: toText(credential.response.clientDataJSON),
        attestationObject: toText(credential.response.attestationObject),
        transports: credential.response.getTransports ? credential.response.getTransports() : [],
      },
    };
  }
  function assertion(credential) {
    return {
      id: credential.id, rawId: toText(credential.rawId), type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      clientExtensionResults: credential.getClientExtensionResults(),
      response: {
        clientDataJSON: toText(credential.response.clientDataJSON),
        authenticatorData: toText(credential.response.authenticatorData),
        signature: toText(credential.response.signature),
        userHandle: credential.response.userHandle ? toText(credential.response.userHandle) : undefined,
      },
    };
  }
  var waiting = null;
  // The page's words in its language (components/passkey-status.tsx), English when it gives none; the server's
  // reasons are English, so another language shows its own words instead.
  var serverWords = (document.documentElement.getAttribute('lang') || 'en') === 'en';
  function words(status, name, english) {
    return (status && status.getAttribute('data-say-' + name)) || english;
  }
  function cancelWaiting() {
    if (waiting) { waiting.abort(); waiting = null; }
  }
  function signInWith(request, base, csrf, extra, signal) {
    var publicKey = Object.assign({}, request, { challenge: toBytes(request.challenge), allowCredentials: credentialList(request.allowCredentials) });
    var options = { publicKey: publicKey };
    if (signal) { options.mediation = 'conditional'; options.signal = signal; }
    return navigator.credentials.get(options).then(function (credential) {
      return post(base, csrf, Object.assign({ credential: assertion(credential) }, extra));
    });
  }
  function startConditional() {
    var field = document.querySelector('input[autocomplete~="webauthn"]');
    var button = document.querySelector('button[data-passkey="sign-in"]');
    if (!field || !button || !window.PublicKeyCredential || !PublicKeyCredential.isConditionalMediationAvailable) return;
    PublicKeyCredential.isConditionalMediationAvailable().then(function (available) {
      if (!available) return;
      var csrfInput = document.querySelector('input[name="_csrf"]');
      var csrf = csrfInput ? csrfInput.value : '';
      var base = button.getAttribute('data-action');
      var extra = {};
      var returnTo = button.getAttribute('data-return-to');
      if (returnTo) extra.return_to = returnTo;
      var controller = new AbortController();
      waiting = controller;
      document.documentElement.setAttribute('data-passkey-autofill', 'waiting');
      post(base + '/options', csrf, {}).then(function (options) {
        return signInWith(options, base, csrf, extra, controller.signal);
      }).then(function (answer) {
        window.location.assign(answer.redirect);
      }, function (error) {
        // Cancelled for the button, or the page is leaving: nothing to say. Otherwise the status line tells why.
        if (controller.signal.aborted) return;
        waiting = null;
        var status = document.getElementById(button.getAttribute('data-status'));
        if (status) status.textContent = (serverWords && error && error.message) || words(status, 'failed', 'The passkey could not be used. Try again.');
      });
    }, function () {});
  }
  document.querySelectorAll('button[data-passkey]').forEach(function (button) {
    var status = document.getElementById(button.getAttribute('data-status'));
    var say = function (text) { if (status) status.textContent = text; };
    button.hidden = false;
    if (!window.PublicKeyCredential || !navigator.credentials) {
      button.disabled = true;
      say(words(status, 'unsupported', 'This browser cannot use passkeys. Use your password instead.'));
      return;
    }
    say('');
    // The fields that go with the button are not in a form of their own: Enter in one presses the button, as
    // Enter in a form's field submits it.
    ['data-name-input', 'data-proof-input'].forEach(function (attribute) {
      var input = document.getElementById(button.getAttribute(attribute) || '');
      if (input) input.addEventListener('keydown', function (event) {
        if (event.key === 'Enter' && !button.disabled) {
          event.preventDefault();
          button.click();
        }
      });
    });
    button.addEventListener('click', function () {
      cancelWaiting();
      var kind = button.getAttribute('data-passkey');
      // The page's own CSRF token, from any of its forms (not repeated on the button: pages stay comparable).
      var csrfInput = document.querySelector('input[name="_csrf"]');
      var csrf = csrfInput ? csrfInput.value : '';
      var base = button.getAttribute('data-action');
      var extra = {};
      var nameInput = document.getElementById(button.getAttribute('data-name-input') || '');
      if (nameInput) extra.name = nameInput.value;
      var proofInput = document.getElementById(button.getAttribute('data-proof-input') || '');
      var first = {};
      if (proofInput) {
        first.proof = proofInput.value;
        fieldError(proofInput, null);
      }
      var returnTo = button.getAttribute('data-return-to');
      if (returnTo) extra.return_to = returnTo;
      button.disabled = true;
      say(words(status, 'prompt', 'Follow your browser’s prompt…'));
      post(base + '/options', csrf, first).then(function (options) {
        if (kind === 'register') {
          var publicKey = Object.assign({}, options, {
            challenge: toBytes(options.challenge),
            user: Object.assign({}, options.user, { id: toBytes(options.user.id) }),
            excludeCredentials: credentialList(options.excludeCredentials),
          });
          return navigator.credentials.create({ publicKey: publicKey }).then(function (credential) {
            return post(base, csrf, Object.assign({ credential: registration(credential) }, extra));
          });
        }
        return signInWith(options, base, csrf, extra, null);
      }).then(function (answer) {
        window.location.assign(answer.redirect);
      }, function (error) {
        button.disabled = false;
        if (proofInput && error && (error.code === 'invalid_proof' || error.code === 'slow_down')) {
          say('');
          var which = error.code === 'slow_down' ? 'data-say-proof-throttled' : 'data-say-proof-wrong';
          fieldError(proofInput, button.getAttribute(which) || error.message);
          return;
        }
        say(error && error.name === 'NotAllowedError' ? words(status, 'closed', 'The passkey prompt was closed or timed out. Try again.') : (serverWords && error && error.message) || words(status, 'failed', 'Something went wrong. Try again.'));
      });
    });
  });
  startConditional();
})();
`;
