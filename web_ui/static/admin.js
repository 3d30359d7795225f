/* sowboard: the admin page. Log in with the PIN, then send admin commands with the session's
   CSRF token. */
(function () {
  "use strict";

  var S = window.Sowboard;
  var t = S.t;
  var csrf = null;
  var state = document.getElementById("admin-state");
  // Nothing here changes with the board, so this page holds no event stream open.
  document.getElementById("conn").hidden = true;
  if (!state) return;
  var loginForm = document.getElementById("login-form");
  var controls = document.getElementById("admin-controls");
  var result = document.getElementById("admin-result");

  function show(admin) {
    state.dataset.admin = admin ? "yes" : "no";
    state.textContent = t(admin ? "logged_in" : "logged_out");
    loginForm.hidden = admin;
    controls.hidden = !admin;
  }

  function say(answer) {
    if (answer.ok) {
      result.textContent = t("done");
    } else {
      result.textContent = S.errorText(answer);
    }
    return answer;
  }

  function send(path, body) {
    return S.post(path, body, csrf ? { "X-CSRF-Token": csrf } : {})
      .then(say)
      .catch(function () {
        result.textContent = t("error_network");
      });
  }

  fetch("/api/admin/session", { credentials: "same-origin" })
    .then(function (r) {
      return r.json();
    })
    .then(function (info) {
      csrf = info.csrf;
      show(!!info.admin);
    })
    .catch(function () {
      show(false);
    });

  loginForm.addEventListener("submit", function (event) {
    event.preventDefault();
    var pin = document.getElementById("pin");
    S.post("/api/admin/login", { pin: pin.value }).then(function (answer) {
      pin.value = "";
      if (answer.ok) {
        csrf = answer.data.csrf;
        show(true);
      }
      say(answer);
    });
  });

  document.getElementById("logout").addEventListener("click", function () {
    send("/api/admin/logout", {}).then(function () {
      csrf = null;
      show(false);
    });
  });

  document.getElementById("new-game-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var body = { variant: document.getElementById("variant").value };
    var text = document.getElementById("options-json").value.trim();
    if (text) {
      try {
        body.options = JSON.parse(text);
      } catch (e) {
        result.textContent = t("error_refused", { error: "options: " + e.message });
        return;
      }
    }
    send("/api/admin/new_game", body);
  });

  document.getElementById("undo").addEventListener("click", function () {
    send("/api/admin/undo", {});
  });

  document.getElementById("save-recording").addEventListener("click", function () {
    send("/api/admin/save_recording", {}).then(function (answer) {
      if (answer && answer.ok) {
        result.textContent = t("recording_saved", { file: answer.data.result.file });
      }
    });
  });

  document.getElementById("mode-form").addEventListener("submit", function (event) {
    event.preventDefault();
    send("/api/admin/mode", { mode: document.getElementById("mode-select").value });
  });

  document.getElementById("calibrate-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var body = { stage: document.getElementById("stage").value };
    var grams = document.getElementById("grams").value;
    if (grams !== "") body.grams = Number(grams);
    send("/api/admin/calibrate", body);
  });
})();
