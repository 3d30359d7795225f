/* sowboard: the hall of boards. A small live board for each board that published, whose turn
   it is, its active flags, offline boards greyed; one board's detail on its own page. The
   page starts from the snapshot in its HTML and then takes each changed board from
   /api/hall/events (or polls /api/hall when event streams fail). */
(function () {
  "use strict";

  var S = window.Sowboard;
  var t = S.t;
  var SVG = "http://www.w3.org/2000/svg";
  var page = document.body.dataset.page;
  var boards = {}; // board id -> its view (controller/hall/state.py BoardTrack.view)
  var version = 0;

  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) {
      node.setAttribute(k, attrs[k]);
    });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function keys(places) {
    var out = {};
    (places || []).forEach(function (p) {
      if (Array.isArray(p)) out[S.placeKey(p)] = true;
    });
    return out;
  }

  /* The board as the board page draws it (RULES.md section 1: congkak's own pit 0 is the
     player's rightmost, its store on the player's left), small. */
  function miniBoard(status, scale) {
    var pits = status.position.pits;
    var n = pits[0].length;
    var step = 36 * scale;
    var r = 15 * scale;
    var storeW = 30 * scale;
    var width = storeW * 2 + step * n + 16 * scale;
    var height = 96 * scale;
    var cw = status.variant === "congkak";
    var expected = keys(status.expected);
    var problems = keys((status.flags || []).map(function (f) { return f.at; }));
    var root = svg("svg", {
      viewBox: "0 0 " + width + " " + height,
      class: "mini-board",
      role: "img",
      "aria-label": t("board_svg_title"),
    });
    root.appendChild(svg("rect", { x: 0, y: 0, width: width, height: height, rx: 10 * scale, class: "mini-wood" }));
    function column(player, i) {
      if (cw) return player === 0 ? n - 1 - i : i;
      return player === 0 ? i : n - 1 - i;
    }
    function place(p, key, x, y, shape, seeds) {
      var cls = "mini-place" + (expected[key] ? " next" : "") + (problems[key] ? " problem" : "");
      var group = svg("g", { class: cls, "data-place": key, "data-seeds": String(seeds) });
      group.appendChild(shape);
      group.appendChild(svg("text", { x: x, y: y + 5 * scale, class: "mini-count" }, String(seeds)));
      root.appendChild(group);
    }
    [0, 1].forEach(function (player) {
      var y = player === 0 ? height * 0.72 : height * 0.28;
      pits[player].forEach(function (seeds, i) {
        var x = storeW + 8 * scale + step * (column(player, i) + 0.5);
        place(player, player + "," + i, x, y, svg("circle", { cx: x, cy: y, r: r, class: "mini-cup" }), seeds);
      });
      var left = cw ? player === 0 : player === 1;
      var sx = left ? storeW / 2 + 4 * scale : width - storeW / 2 - 4 * scale;
      var rect = svg("rect", {
        x: sx - storeW / 2 + 2, y: height * 0.15, width: storeW - 4, height: height * 0.7,
        rx: 8 * scale, class: "mini-cup",
      });
      place(player, player + ",store", sx, height / 2, rect, status.position.stores[player]);
    });
    return root;
  }

  function turnText(status) {
    var pos = status.position;
    if (pos.over) {
      var a = pos.stores[0];
      var b = pos.stores[1];
      return pos.winner === "draw"
        ? t("over_draw", { a: a, b: b })
        : t("over_win", { n: pos.winner + 1, a: Math.max(a, b), b: Math.min(a, b) });
    }
    if (pos.to_move === null || pos.to_move === undefined) return t("turn_both");
    return t("turn", { n: pos.to_move + 1 });
  }

  function stateOf(view) {
    if (!view.status) return "unknown";
    return view.online ? "online" : "offline";
  }

  function facts(view) {
    var status = view.status || {};
    var health = status.health || {};
    var mqtt = status.mqtt || {};
    return t("hall_facts", {
      moves: status.moves || 0,
      mode: status.mode ? t("mode_" + status.mode) : "–",
      lag: typeof health.lag_ms_p99 === "number" ? health.lag_ms_p99.toFixed(1) : "–",
      dropped: mqtt.dropped || 0,
      lost: view.events_lost || 0,
    });
  }

  /* A fault of the board's own parts (its health: link_fault, write_failed) in the words the
     board's page gives the flag it raises for it, in the page's language. */
  function faultText(fault) {
    return S.flagText({ kind: fault.kind, at: null, expected: [], detail: fault.detail, player: null });
  }

  /* The scale readings a board lost by falling behind (health.behind), since its start and
     in the last minute; "–" from a board too old to say. */
  function behindFigures(behind) {
    if (!behind) return "–";
    return t("hall_behind_figures", {
      total: behind.dropped_frames,
      minute: behind.dropped_frames_last_minute,
    });
  }

  /* The board's warning notices (health.warnings: a damaged file kept aside, readings lost,
     ...), checked (a message on the broker may hold anything), oldest first; null from a
     board too old to send them. */
  function warningsOf(status) {
    var warnings = (status && status.health || {}).warnings;
    if (!warnings || typeof warnings !== "object") return null;
    var notices = (Array.isArray(warnings.notices) ? warnings.notices : []).filter(function (n) {
      return n && typeof n.text === "string";
    });
    var total = Math.max(typeof warnings.total === "number" ? warnings.total : 0, notices.length);
    // (A board too old to say which were read: none were.)
    var unread = typeof warnings.unacknowledged === "number" ? warnings.unacknowledged : total;
    return { total: total, unacknowledged: unread, notices: notices };
  }

  /* A board that told warnings nobody acknowledged: their count and the newest one's time and
     text (the list is on its detail page). The mark stays until an operator acknowledges them
     on the board's admin page, or the board's daemon starts again. */
  function warningsMark(block, warned) {
    var mark = S.el("p", { class: "hall-fault hall-warnings" }, "⚠ " + t("hall_warnings_card", { n: warned.unacknowledged }));
    var last = warned.notices[warned.notices.length - 1];
    if (last && typeof last.at === "number" && isFinite(last.at)) {
      mark.appendChild(document.createTextNode(" "));
      mark.appendChild(S.noticeTime(last.at));
    }
    block.appendChild(mark);
    if (last) block.appendChild(S.el("p", { class: "hall-warning-text" }, last.text));
  }

  function boardBlock(view, scale) {
    var block = S.el("div", { class: "hall-board-body" });
    var status = view.status;
    if (!status || !status.position) {
      block.appendChild(S.el("p", { class: "hall-waiting" }, t("hall_no_status")));
      return block;
    }
    block.appendChild(miniBoard(status, scale));
    block.appendChild(S.el("p", { class: "hall-turn" }, turnText(status)));
    var flags = status.flags || [];
    if (flags.length) {
      var list = S.el("ul", { class: "hall-flags" });
      flags.forEach(function (flag) {
        list.appendChild(S.el("li", null, "⚠ " + S.flagText(flag)));
      });
      block.appendChild(list);
    }
    (status.health && status.health.faults || []).forEach(function (fault) {
      block.appendChild(S.el("p", { class: "hall-fault" }, "⚠ " + faultText(fault)));
    });
    var behind = (status.health || {}).behind;
    if (behind && behind.dropped_frames_last_minute) {
      // Scale readings lost within the last minute: words as on the board's sensor page.
      block.appendChild(S.el("p", { class: "hall-fault hall-behind" }, "⚠ " + t("behind_dropped", {
        minute: behind.dropped_frames_last_minute,
        total: behind.dropped_frames,
      })));
    }
    var warned = warningsOf(status);
    if (warned && warned.unacknowledged) warningsMark(block, warned);
    block.appendChild(S.el("p", { class: "hall-facts" }, facts(view)));
    return block;
  }

  function card(view) {
    var state = stateOf(view);
    var flagged = !!(view.status && view.status.flags && view.status.flags.length);
    var warned = warningsOf(view.status);
    var item = S.el("li", {
      class: "hall-card " + state + (flagged ? " flagged" : "") + (warned && warned.unacknowledged ? " warned" : ""),
      "data-board": view.board,
      "data-state": state,
    });
    var link = S.el("a", { href: "/board/" + encodeURIComponent(view.board), class: "hall-card-link" });
    var head = S.el("h2", null, view.board + " ");
    head.appendChild(S.el("span", { class: "hall-badge " + state }, t("hall_" + state)));
    link.appendChild(head);
    link.appendChild(boardBlock(view, 1));
    item.appendChild(link);
    return item;
  }

  /* Every card, or only the card of `only` (a board that changed). */
  function renderHall(only) {
    var list = document.getElementById("hall");
    var ids = Object.keys(boards).sort();
    if (only && list.querySelector('[data-board="' + CSS.escape(only) + '"]')) ids = [only];
    document.getElementById("hall-empty").hidden = ids.length > 0;
    var existing = {};
    Array.prototype.forEach.call(list.children, function (node) {
      existing[node.dataset.board] = node;
    });
    var all = Object.keys(boards).sort();
    ids.forEach(function (id) {
      var fresh = card(boards[id]);
      var old = existing[id];
      if (old) {
        list.replaceChild(fresh, old);
      } else {
        list.insertBefore(fresh, list.children[all.indexOf(id)] || null);
      }
    });
  }

  function eventText(event) {
    if (event.event === "move") return t("hall_event_move", { ply: event.ply, n: event.player + 1, pit: event.pit + 1 });
    if (event.event === "undo") return t("hall_event_undo", { moves: event.moves });
    if (event.event === "flag") return (event.active ? "⚠ " : "✓ ") + S.flagText(event);
    if (event.event === "record") return t("hall_event_record", { moves: (event.record.moves || []).length });
    return event.event;
  }

  function renderDetail() {
    var root = document.getElementById("detail");
    var view = boards[root.dataset.board];
    if (!view) return;
    var state = stateOf(view);
    root.textContent = "";
    root.className = "hall-detail " + state;
    var head = S.el("h1", null, view.board + " ");
    head.appendChild(S.el("span", { class: "hall-badge " + state }, t("hall_" + state)));
    root.appendChild(head);
    root.appendChild(boardBlock(view, 2.2));
    var events = document.getElementById("events");
    events.textContent = "";
    view.events.slice().reverse().forEach(function (event) {
      events.appendChild(S.el("li", { "data-event": event.event }, eventText(event)));
    });
    var health = document.getElementById("health");
    health.textContent = "";
    var status = view.status || {};
    var rows = [
      ["hall_variant", status.variant || "–"],
      ["hall_board_name", status.board_name || "–"],
      ["hall_state", (status.health || {}).state || "–"],
      ["hall_lag", status.health ? status.health.lag_ms_p99 + " ms" : "–"],
      ["hall_behind", behindFigures((status.health || {}).behind)],
      ["hall_dropped", String((status.mqtt || {}).dropped || 0)],
      ["hall_lost", String(view.events_lost)],
      ["hall_received", String(view.events_received)],
    ];
    rows.forEach(function (row) {
      health.appendChild(S.el("dt", null, t(row[0])));
      health.appendChild(S.el("dd", null, row[1]));
    });
    renderWarnings(warningsOf(status));
  }

  /* The detail page's list of the board's warning notices, newest first, with their times,
     and how many older ones only the board's log has. Text only: a notice names files. */
  function renderWarnings(warned) {
    var list = document.getElementById("warnings");
    list.textContent = "";
    document.getElementById("warnings-heading").textContent = t("hall_warnings_heading", {
      n: warned ? warned.total : 0,
    });
    var none = document.getElementById("warnings-none");
    none.hidden = !!(warned && warned.notices.length);
    none.textContent = warned ? t("hall_warnings_none") : t("hall_warnings_unknown");
    (warned ? warned.notices : []).slice().reverse().forEach(function (notice) {
      list.appendChild(S.noticeItem({
        text: notice.text, at: notice.at, level: "warning",
        repeats: notice.repeats, acknowledged: notice.acknowledged,
      }));
    });
    var logged = document.getElementById("warnings-logged");
    var older = warned ? warned.total - warned.notices.length : 0;
    logged.hidden = older <= 0;
    logged.textContent = t("hall_warnings_logged", { n: older });
  }

  function render(only) {
    if (page === "hall") renderHall(only);
    else renderDetail();
  }

  function setBroker(connected, error) {
    var note = document.getElementById("broker");
    note.hidden = connected;
    note.textContent = connected ? "" : t("hall_no_broker", { error: error || "?" });
  }

  function setConn(state, key) {
    var conn = document.getElementById("conn");
    conn.dataset.conn = state;
    conn.textContent = t(key);
  }

  function take(snapshot) {
    version = snapshot.version;
    boards = {};
    snapshot.boards.forEach(function (view) {
      boards[view.board] = view;
    });
    setBroker(snapshot.broker.connected, snapshot.broker.error);
    render();
  }

  function poll() {
    setConn("polling", "conn_polling");
    fetch("/api/hall", { cache: "no-store", credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(take)
      .catch(function () { setConn("offline", "conn_offline"); })
      .then(function () { window.setTimeout(poll, 2000); });
  }

  function listen() {
    if (typeof window.EventSource !== "function") return poll();
    var detail = document.getElementById("detail");
    var url = "/api/hall/events?since=" + version;
    if (detail) url += "&board=" + encodeURIComponent(detail.dataset.board);
    var source = new EventSource(url);
    var failures = 0;
    source.onopen = function () {
      failures = 0;
      setConn("live", "conn_live");
    };
    source.addEventListener("board", function (message) {
      var view = JSON.parse(message.data);
      boards[view.board] = view;
      version = Math.max(version, view.version);
      render(view.board);
    });
    source.addEventListener("hall", function (message) {
      var state = JSON.parse(message.data);
      setBroker(state.connected, state.error);
      render();
    });
    source.onerror = function () {
      failures += 1;
      setConn("offline", "conn_offline");
      if (failures >= 3) {
        source.close();
        poll();
      }
    };
  }

  if (page === "hall") {
    take(S.status);
  } else {
    var view = S.status;
    boards[view.board] = view;
    version = view.version;
    render();
  }
  listen();
})();
