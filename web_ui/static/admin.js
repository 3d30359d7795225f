/* sowboard: the admin page. Log in with the PIN, then send admin commands with the session's
   CSRF token. */
(function () {
  "use strict";

  var S = window.Sowboard;
  var t = S.t;
  var csrf = null;
  var state = document.getElementById("admin-state");
  var conn = document.getElementById("conn");
  // Only the logged-in controls change with the board (Undo): only they hold a stream open.
  conn.hidden = true;
  if (!state) return;
  var loginForm = document.getElementById("login-form");
  var controls = document.getElementById("admin-controls");
  var result = document.getElementById("admin-result");
  var undoButton = document.getElementById("undo");
  var stopListening = null;

  /* Undo is disabled while there is nothing to take back (game.can_undo) rather than
     answered with a refusal. */
  function renderUndo(status) {
    var can = !!(status.game && status.game.can_undo);
    undoButton.disabled = !can;
    document.getElementById("undo-wait").textContent = can ? "" : t("undo_nothing");
  }

  function follow(admin) {
    conn.hidden = !admin;
    if (admin && !stopListening) {
      renderUndo(S.status);
      stopListening = S.listen(renderUndo);
    } else if (!admin && stopListening) {
      stopListening();
      stopListening = null;
    }
  }

  function show(admin) {
    state.dataset.admin = admin ? "yes" : "no";
    state.textContent = t(admin ? "logged_in" : "logged_out");
    loginForm.hidden = admin;
    controls.hidden = !admin;
    follow(admin);
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

  /* The new game's options as form fields: those of the chosen variant, each shown only
     while it applies (its `applies_when`), starting at the variant's defaults. */
  var ruleOptions = JSON.parse(document.getElementById("rule-options").textContent || "{}");
  var variantSelect = document.getElementById("variant");
  var fieldsBox = document.getElementById("option-fields");

  function valueLabel(value) {
    if (typeof value === "string" && S.strings["optval_" + value] !== undefined) {
      return t("optval_" + value);
    }
    return String(value);
  }

  function fieldInput(field) {
    var id = "opt-" + field.name;
    var input;
    if (field.kind === "choice") {
      input = S.el("select", { id: id });
      field.values.forEach(function (v, k) {
        var option = S.el("option", { value: String(k) }, valueLabel(v));
        if (v === field.default) option.selected = true;
        input.appendChild(option);
      });
    } else if (field.kind === "bool") {
      input = S.el("input", { id: id, type: "checkbox" });
      input.checked = !!field.default;
    } else if (field.kind === "int") {
      input = S.el("input", { id: id, type: "number", min: String(field.min), max: String(field.max), step: "1" });
      input.value = String(field.default);
    } else if (field.kind === "seconds") {
      input = S.el("input", { id: id, type: "number", min: "1", step: "any", placeholder: t("value_none") });
      input.value = field.default === null ? "" : String(field.default);
    } else {
      input = S.el("input", { id: id, type: "text", inputmode: "numeric", placeholder: "2, 3" });
      input.value = (field.default || []).join(", ");
    }
    return input;
  }

  /* A field's value as JSON; throws an Error naming the option for a value that is not one. */
  function fieldValue(field, input) {
    if (field.kind === "choice") return field.values[Number(input.value)];
    if (field.kind === "bool") return input.checked;
    if (field.kind === "int") {
      var n = Number(input.value);
      if (input.value === "" || !Number.isInteger(n)) throw new Error(field.name + ": " + t("error_whole_number"));
      return n;
    }
    if (field.kind === "seconds") return input.value === "" ? null : Number(input.value);
    return input.value.split(",").map(function (part) {
      var k = Number(part.trim());
      if (part.trim() === "" || !Number.isInteger(k)) throw new Error(field.name + ": " + t("error_whole_numbers"));
      return k;
    });
  }

  function fieldsOf(variant) {
    return ruleOptions[variant] || [];
  }

  function currentValues(variant) {
    var values = {};
    fieldsOf(variant).forEach(function (field) {
      var input = document.getElementById("opt-" + field.name);
      try {
        values[field.name] = fieldValue(field, input);
      } catch (e) {
        values[field.name] = field.default;
      }
    });
    return values;
  }

  function applies(field, values) {
    return Object.keys(field.applies_when).every(function (other) {
      return field.applies_when[other].indexOf(values[other]) >= 0;
    });
  }

  function showApplicable() {
    var variant = variantSelect.value;
    var values = currentValues(variant);
    fieldsOf(variant).forEach(function (field) {
      var shown = applies(field, values);
      fieldsBox.querySelectorAll('[data-option="' + field.name + '"]').forEach(function (node) {
        node.hidden = !shown;
      });
    });
  }

  function buildFields() {
    fieldsBox.textContent = "";
    fieldsOf(variantSelect.value).forEach(function (field) {
      var label = S.el("label", { for: "opt-" + field.name, "data-option": field.name },
        S.strings["opt_" + field.name] ? t("opt_" + field.name) : field.name);
      var input = fieldInput(field);
      input.setAttribute("data-option", field.name);
      input.addEventListener("change", showApplicable);
      fieldsBox.appendChild(label);
      fieldsBox.appendChild(input);
    });
    showApplicable();
  }

  variantSelect.addEventListener("change", buildFields);
  buildFields();

  document.getElementById("new-game-form").addEventListener("submit", function (event) {
    event.preventDefault();
    var variant = variantSelect.value;
    var options = {};
    var values = {};
    try {
      fieldsOf(variant).forEach(function (field) {
        values[field.name] = fieldValue(field, document.getElementById("opt-" + field.name));
      });
    } catch (e) {
      result.textContent = t("error_refused", { error: e.message });
      return;
    }
    // Only what differs from the variant's own rules, and only what applies.
    fieldsOf(variant).forEach(function (field) {
      var value = values[field.name];
      if (applies(field, values) && JSON.stringify(value) !== JSON.stringify(field.default)) {
        options[field.name] = value;
      }
    });
    var body = { variant: variant, options: options };
    body.match = document.getElementById("match-check").checked;
    // The computer player: chosen here for every new game (an empty choice: two people).
    var player = document.getElementById("opponent-player").value;
    body.opponent = player === "" ? null : {
      player: Number(player),
      level: Number(document.getElementById("opponent-level").value),
    };
    send("/api/admin/new_game", body);
  });

  undoButton.addEventListener("click", function () {
    send("/api/admin/undo", {});
  });

  document.getElementById("acknowledge-notices").addEventListener("click", function () {
    send("/api/admin/acknowledge_notices", {}).then(function (answer) {
      if (answer && answer.ok) {
        result.textContent = t("notices_acked", { n: answer.data.result.acknowledged });
      }
    });
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
