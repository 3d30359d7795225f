/* sowboard: what every page shares. Strings, place names, colour names, live updates. */
(function () {
  "use strict";

  var S = {};
  S.strings = JSON.parse(document.getElementById("sowboard-strings").textContent);
  S.status = JSON.parse(document.getElementById("sowboard-status").textContent);

  /* The string `key` with its {placeholders} filled, exactly as web_ui/i18n.py t() does. */
  S.t = function (key, params) {
    var template = S.strings[key];
    if (template === undefined) return key;
    return template.replace(/\{(\w+)\}/g, function (whole, name) {
      return params && Object.prototype.hasOwnProperty.call(params, name)
        ? String(params[name])
        : whole;
    });
  };

  S.seeds = function (n) {
    return n === 1 ? S.t("seeds_1") : S.t("seeds_n", { n: n });
  };

  function isPlace(place) {
    return Array.isArray(place) && place.length === 2 && (place[0] === 0 || place[0] === 1);
  }

  /* A place told from the mover's side: "pit 3", "your store", "Player 2's pit 4".
     Pits and players are counted from 1 on the page. */
  S.placeName = function (place, mover) {
    if (!isPlace(place)) return S.t("place_unknown");
    var player = place[0];
    var where = place[1];
    if (mover !== 0 && mover !== 1) return S.absPlaceName(place);
    if (where === "store") {
      return player === mover
        ? S.t("place_own_store")
        : S.t("place_other_store", { p: player + 1 });
    }
    return player === mover
      ? S.t("place_own_pit", { n: where + 1 })
      : S.t("place_other_pit", { p: player + 1, n: where + 1 });
  };

  /* A place told from nobody's side: "Player 1, pit 3". */
  S.absPlaceName = function (place) {
    if (!isPlace(place)) return S.t("place_unknown");
    if (place[1] === "store") return S.t("place_store_of", { p: place[0] + 1 });
    return S.t("place_pit_of", { p: place[0] + 1, n: place[1] + 1 });
  };

  S.placeList = function (places, mover) {
    var names = (places || []).filter(isPlace).map(function (p) {
      return S.placeName(p, mover);
    });
    if (names.length === 0) return S.t("place_unknown");
    if (names.length === 1) return names[0];
    var head = names.slice(0, -1).join(S.t("list_sep"));
    return S.t("list_or", { a: head, b: names[names.length - 1] });
  };

  function isPlayer(n) {
    return n === 0 || n === 1;
  }

  /* A flag worded for the player who made the mistake (`flag.player`), else for the player to
     move (`mover`; none, as in the hall: from nobody's side): "Player 2: a seed went into
     Player 1's store...". */
  S.flagText = function (flag, mover) {
    var side = isPlayer(flag.player) ? flag.player : mover;
    var params = {
      at: S.placeName(flag.at, side),
      expected: S.placeList(flag.expected, side),
      kind: flag.kind,
      detail: flag.detail || "?",
    };
    var key = "flag_" + flag.kind;
    if (flag.kind === "seed_lost" && !(flag.expected && flag.expected.length)) {
      key = "flag_seed_lost_anywhere";
    }
    var text = S.strings[key] !== undefined ? S.t(key, params) : S.t("flag_unknown", params);
    return isPlayer(flag.player) ? S.t("flag_by", { n: flag.player + 1, text: text }) : text;
  };

  S.placeKey = function (place) {
    return place[0] + "," + place[1];
  };

  /* A name for an LED colour, so that nobody has to tell colours apart by sight. */
  S.colorKey = function (hex) {
    var m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex || "");
    if (!m) return "color_off";
    var r = parseInt(m[1], 16) / 255;
    var g = parseInt(m[2], 16) / 255;
    var b = parseInt(m[3], 16) / 255;
    var max = Math.max(r, g, b);
    var min = Math.min(r, g, b);
    if (max < 0.08) return "color_off";
    var sat = max === 0 ? 0 : (max - min) / max;
    // Teach mode's path is a dim white beside the bright white of a real target: named apart.
    if (sat < 0.25) return max < 0.5 ? "color_dim_white" : "color_white";
    var h;
    if (max === r) h = ((g - b) / (max - min)) % 6;
    else if (max === g) h = (b - r) / (max - min) + 2;
    else h = (r - g) / (max - min) + 4;
    h = (h * 60 + 360) % 360;
    if (h < 30 || h >= 340) return "color_red";
    if (h < 45) return "color_orange";
    if (h < 70) return "color_yellow";
    if (h < 165) return "color_green";
    if (h < 195) return "color_cyan";
    if (h < 255) return "color_blue";
    if (h < 290) return "color_purple";
    return "color_pink";
  };

  S.isLit = function (light) {
    return !!light && S.colorKey(light.color) !== "color_off";
  };

  S.effectKey = function (effect) {
    if (effect === "pulse") return "effect_pulse";
    if (effect === "blink") return "effect_blink";
    if (effect === "fast_blink") return "effect_fast_blink";
    if (effect === "chase") return "effect_chase";
    return "effect_solid";
  };

  /* "blue, pulsing" */
  S.lightName = function (light) {
    if (!S.isLit(light)) return S.t("color_off");
    return S.t(S.colorKey(light.color)) + S.t("list_sep") + S.t(S.effectKey(light.effect));
  };

  S.el = function (tag, attrs, text) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        node.setAttribute(k, attrs[k]);
      });
    }
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  };

  /* When a notice was told, in the page's language: the time today, the date too before. */
  S.noticeTime = function (at) {
    var when = new Date(at * 1000);
    if (isNaN(when.getTime())) return S.el("time", null, "–"); // (out of range: from a broker)
    var lang = document.documentElement.lang || "en";
    var today = when.toDateString() === new Date().toDateString();
    var shown = today
      ? when.toLocaleTimeString(lang, { hour: "2-digit", minute: "2-digit" })
      : when.toLocaleString(lang, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
    return S.el("time", { datetime: when.toISOString(), title: when.toLocaleString(lang) }, shown);
  };

  /* One notice the daemon told (the board page's list, the hall's detail page): a warning
     marked as one (and as read, once an operator acknowledged it), its time, how often it was
     told, its text. `notice`: {text, at, level, repeats?, acknowledged?}. Text only: a notice
     names files (a path may hold anything). */
  S.noticeItem = function (notice) {
    var warning = notice.level === "warning";
    var read = warning && notice.acknowledged === true;
    var item = S.el("li", {
      class: "notice-item " + (warning ? "notice-warning" : "notice-info") + (read ? " notice-read" : ""),
      "data-level": warning ? "warning" : "info",
    });
    if (read) item.setAttribute("data-acknowledged", "true");
    var when = S.el("div", { class: "notice-when" });
    if (warning) {
      var label = "⚠ " + S.t("notice_warning") + (read ? " (" + S.t("notice_acknowledged") + ")" : "");
      when.appendChild(S.el("strong", { class: "notice-level" }, label));
    }
    if (typeof notice.at === "number" && isFinite(notice.at)) when.appendChild(S.noticeTime(notice.at));
    var repeats = typeof notice.repeats === "number" && notice.repeats > 1 ? notice.repeats : 0;
    if (repeats) when.appendChild(S.el("span", { class: "notice-repeats" }, S.t("notice_repeats", { n: repeats })));
    if (when.childNodes.length) item.appendChild(when);
    item.appendChild(S.el("span", { class: "notice-text" }, notice.text));
    return item;
  };

  var toastTimer = null;
  S.toast = function (message) {
    var box = document.getElementById("toast");
    if (!box) return;
    box.textContent = message;
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () {
      box.hidden = true;
    }, 6000);
  };

  /* POST JSON; resolves to {ok, status, data}. */
  S.post = function (url, body, headers) {
    var h = { "Content-Type": "application/json", Accept: "application/json" };
    Object.keys(headers || {}).forEach(function (k) {
      h[k] = headers[k];
    });
    return fetch(url, {
      method: "POST",
      headers: h,
      body: JSON.stringify(body || {}),
      credentials: "same-origin",
    }).then(function (response) {
      return response
        .json()
        .catch(function () {
          return {};
        })
        .then(function (data) {
          return { ok: response.ok, status: response.status, data: data };
        });
    });
  };

  /* A refused command in the page's language. The server's messages are English (they name
     fields for developers): in English they are shown as they are, in any other language the
     page says what it can in its own words and the English goes to the console. */
  S.errorText = function (answer) {
    var data = answer.data || {};
    if (document.documentElement.lang === "en") {
      return S.t("error_refused", { error: data.error || answer.status });
    }
    if (data.error && window.console) window.console.info("refused: " + data.error);
    if (data.field === "command") return S.t("error_field_command");
    return S.t("error_status", { status: answer.status });
  };

  /* Tell the person about a refused command or a network failure. */
  S.report = function (promise) {
    return promise
      .then(function (answer) {
        if (!answer.ok) {
          S.toast(S.errorText(answer));
        }
        return answer;
      })
      .catch(function () {
        S.toast(S.t("error_network"));
        return { ok: false, status: 0, data: {} };
      });
  };

  /* Live updates: Server-Sent Events from /api/events; if they fail, poll /api/state every
     second and try the event stream again now and then. `onStatus` gets every new snapshot.
     Returns a function that stops them (and gives the server its stream slot back). */
  S.listen = function (onStatus) {
    var version = S.status.version;
    var source = null;
    var polling = false;
    var pollTimer = null;
    var retryTimer = null;
    var conn = document.getElementById("conn");

    function setConn(state, key) {
      S.connection = state;
      if (conn) {
        conn.dataset.conn = state;
        conn.textContent = S.t(key);
      }
    }

    function deliver(status) {
      if (!status || typeof status.version !== "number") return;
      if (status.version === version) return;
      version = status.version;
      S.status = status;
      onStatus(status);
    }

    function poll() {
      fetch("/api/state", { cache: "no-store", credentials: "same-origin" })
        .then(function (r) {
          return r.ok ? r.json() : Promise.reject(r.status);
        })
        .then(function (status) {
          if (polling) setConn("polling", "conn_polling");
          deliver(status);
        })
        .catch(function () {
          if (polling) setConn("offline", "conn_offline");
        })
        .then(function () {
          if (polling) pollTimer = setTimeout(poll, 1000);
        });
    }

    function startPolling() {
      if (polling) return;
      polling = true;
      setConn("polling", "conn_polling");
      poll();
    }

    function stopPolling() {
      polling = false;
      clearTimeout(pollTimer);
    }

    function startEvents() {
      retryTimer = null;
      if (typeof window.EventSource !== "function") {
        startPolling();
        return;
      }
      source = new EventSource("/api/events");
      source.addEventListener("status", function (event) {
        stopPolling();
        setConn("live", "conn_live");
        var status;
        try {
          status = JSON.parse(event.data);
        } catch (e) {
          return;
        }
        deliver(status);
      });
      source.onerror = function () {
        if (source) source.close();
        source = null;
        startPolling();
        if (!retryTimer) retryTimer = setTimeout(startEvents, 15000);
      };
    }

    setConn("connecting", "conn_connecting");
    startEvents();
    return function stop() {
      stopPolling();
      clearTimeout(retryTimer);
      retryTimer = null;
      if (source) source.close();
      source = null;
    };
  };

  window.Sowboard = S;
})();
