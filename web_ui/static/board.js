/* sowboard: the board page. Draws the board as SVG, tells whose turn it is, what comes next,
   what went wrong, and (on the simulated board) lets you play by clicking. */
(function () {
  "use strict";

  var S = window.Sowboard;
  var t = S.t;
  var SVG = "http://www.w3.org/2000/svg";

  // Geometry (SVG units).
  var PIT_R = 44;
  var STEP = 112;
  var STORE_W = 100;
  var PAD = 24;
  var ROW_TOP = 140;
  var ROW_BOTTOM = 264;
  var HEIGHT = 420;

  var drawn = null; // {key, places: {"p,i": {group, ring, count, color, next, problem}}}
  var openingPick = [null, null]; // the simultaneous opening: each hand's pit, once clicked

  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs || {}).forEach(function (k) {
      node.setAttribute(k, attrs[k]);
    });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function pitsOf(status) {
    var pits = status.game.position.pits;
    return pits && pits[0] ? pits[0].length : status.board.pits;
  }

  /* RULES.md section 1: congkak sows clockwise with the store on the player's left, so own pit
     0 is the player's rightmost; kalah and oware sow counter-clockwise with the store on the
     right. Player 0 sits at the bottom, player 1 at the top, facing them. */
  function storeOnLeftOfPlayer(status) {
    return status.game.variant === "congkak";
  }

  function layout(status) {
    var n = pitsOf(status);
    var width = PAD + STORE_W + PAD + n * STEP + PAD + STORE_W + PAD;
    var leftStoreX = PAD + STORE_W / 2;
    var rightStoreX = width - PAD - STORE_W / 2;
    var firstPitX = PAD + STORE_W + PAD + STEP / 2;
    var cw = storeOnLeftOfPlayer(status);
    function column(player, i) {
      // column 0 is the viewer's leftmost
      if (cw) return player === 0 ? n - 1 - i : i;
      return player === 0 ? i : n - 1 - i;
    }
    return {
      n: n,
      width: width,
      pit: function (player, i) {
        return { x: firstPitX + column(player, i) * STEP, y: player === 0 ? ROW_BOTTOM : ROW_TOP };
      },
      store: function (player) {
        var left = cw ? player === 0 : player === 1;
        return { x: left ? leftStoreX : rightStoreX, y: (ROW_TOP + ROW_BOTTOM) / 2 };
      },
    };
  }

  function buildBoard(status) {
    var geo = layout(status);
    var root = svg("svg", {
      viewBox: "0 0 " + geo.width + " " + HEIGHT,
      role: "group",
      "aria-labelledby": "board-title",
      class: "board-svg",
    });
    root.appendChild(svg("title", { id: "board-title" }, t("board_svg_title")));
    root.appendChild(
      svg("rect", {
        x: PAD / 2, y: 70, width: geo.width - PAD, height: 264, rx: 124, class: "wood",
      })
    );
    var labels = {
      1: svg("text", { x: geo.width / 2, y: 20, class: "player-label", id: "player-label-1" }),
      0: svg("text", { x: geo.width / 2, y: HEIGHT - 14, class: "player-label", id: "player-label-0" }),
    };
    root.appendChild(labels[0]);
    root.appendChild(labels[1]);

    var places = {};
    [0, 1].forEach(function (player) {
      for (var i = 0; i < geo.n; i++) {
        var at = geo.pit(player, i);
        places[player + "," + i] = buildPit(root, [player, i], at, player);
      }
      places[player + ",store"] = buildStore(root, [player, "store"], geo.store(player));
    });
    var host = document.getElementById("board");
    host.textContent = "";
    host.appendChild(root);
    return { key: geo.n + ":" + status.game.variant, places: places, labels: labels };
  }

  function markers(group, x, yTop, xRight) {
    // ▼ "the next step goes here": a black down-pointing triangle above the place.
    var next = svg("g", { class: "marker-next", "aria-hidden": "true" });
    next.appendChild(
      svg("path", {
        d: "M " + (x - 13) + " " + (yTop - 20) + " L " + (x + 13) + " " + (yTop - 20) +
          " L " + x + " " + (yTop - 2) + " Z",
      })
    );
    group.appendChild(next);
    // ⚠ "problem here": a yellow warning triangle with "!" at the top right.
    var problem = svg("g", { class: "marker-problem", "aria-hidden": "true" });
    var cx = xRight;
    var cy = yTop + 8;
    problem.appendChild(
      svg("path", {
        d: "M " + cx + " " + (cy - 16) + " L " + (cx + 17) + " " + (cy + 13) +
          " L " + (cx - 17) + " " + (cy + 13) + " Z",
      })
    );
    problem.appendChild(svg("text", { x: cx, y: cy + 9 }, "!"));
    group.appendChild(problem);
    return { next: next, problem: problem };
  }

  function buildPit(root, place, at, player) {
    var group = svg("g", { class: "place pit", "data-place": S.placeKey(place) });
    var ring = svg("circle", { cx: at.x, cy: at.y, r: PIT_R + 9, class: "ring" });
    var cup = svg("circle", { cx: at.x, cy: at.y, r: PIT_R, class: "cup" });
    var count = svg("text", { x: at.x, y: at.y + 2, class: "count" });
    var color = svg("text", { x: at.x, y: at.y + 29, class: "color-name" });
    var numberY = player === 0 ? at.y + PIT_R + 36 : at.y - PIT_R - 44;
    var number = svg("text", { x: at.x, y: numberY, class: "pit-number" }, String(place[1] + 1));
    group.appendChild(ring);
    group.appendChild(cup);
    group.appendChild(count);
    group.appendChild(color);
    group.appendChild(number);
    var m = markers(group, at.x, at.y - PIT_R - 8, at.x + PIT_R * 0.8);
    root.appendChild(group);
    group.addEventListener("click", function () {
      play(group);
    });
    group.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        play(group);
      }
    });
    return { group: group, ring: ring, count: count, color: color, next: m.next, problem: m.problem };
  }

  function buildStore(root, place, at) {
    var h = ROW_BOTTOM - ROW_TOP + 2 * PIT_R;
    var group = svg("g", { class: "place store", "data-place": S.placeKey(place) });
    var ring = svg("rect", {
      x: at.x - STORE_W / 2 - 9, y: at.y - h / 2 - 9, width: STORE_W + 18, height: h + 18,
      rx: STORE_W / 2 + 9, class: "ring",
    });
    var cup = svg("rect", {
      x: at.x - STORE_W / 2, y: at.y - h / 2, width: STORE_W, height: h, rx: STORE_W / 2,
      class: "cup",
    });
    var count = svg("text", { x: at.x, y: at.y + 2, class: "count store-count" });
    var color = svg("text", { x: at.x, y: at.y + 36, class: "color-name" });
    var label = svg("text", { x: at.x, y: at.y - 40, class: "store-label" }, t("store_short"));
    var owner = svg("text", { x: at.x, y: at.y - 62, class: "store-owner" }, t("player", { n: place[0] + 1 }));
    [ring, cup, count, color, label, owner].forEach(function (n) {
      group.appendChild(n);
    });
    var m = markers(group, at.x, at.y - h / 2 - 8, at.x + STORE_W / 2 - 8);
    root.appendChild(group);
    return { group: group, ring: ring, count: count, color: color, next: m.next, problem: m.problem };
  }

  function seedsAt(status, place) {
    var pos = status.game.position;
    if (place[1] === "store") return pos.stores[place[0]];
    var row = pos.pits[place[0]];
    return row ? row[place[1]] : 0;
  }

  function keysOf(places) {
    var set = {};
    (places || []).forEach(function (p) {
      if (Array.isArray(p)) set[S.placeKey(p)] = true;
    });
    return set;
  }

  function canPlay(status) {
    var game = status.game;
    var busy = !!(status.daemon && status.daemon.sim_busy);
    // (In the opening a hand back at the start (rule A) while the other sows is no time to
    // click: the virtual hands are still at work.)
    return !!status.sim && !busy && !game.position.over && game.expected_kind === "pickup" &&
      game.phase === "start";
  }

  function renderBoard(status) {
    var key = pitsOf(status) + ":" + status.game.variant;
    if (!drawn || drawn.key !== key) drawn = buildBoard(status);
    var game = status.game;
    var mover = game.position.to_move;
    var expected = keysOf(game.expected);
    var problems = keysOf(
      status.flags.filter(function (f) { return f.active; }).map(function (f) { return f.at; })
    );
    var lights = (status.leds && status.leds.places) || {};
    var playable = canPlay(status);
    var opening = isOpening(status);

    [0, 1].forEach(function (player) {
      var label = drawn.labels[player];
      label.textContent = t("player", { n: player + 1 });
      label.classList.toggle("to-move", !game.position.over && player === mover);
    });

    Object.keys(drawn.places).forEach(function (k) {
      var view = drawn.places[k];
      var parts = k.split(",");
      var place = [Number(parts[0]), parts[1] === "store" ? "store" : Number(parts[1])];
      var seeds = seedsAt(status, place);
      var light = lights[k];
      var lit = S.isLit(light);
      view.count.textContent = String(seeds);
      view.ring.setAttribute("fill", lit ? light.color : "none");
      view.ring.setAttribute("class", "ring" + (lit ? " lit fx-" + (light.effect || "solid") : ""));
      view.color.textContent = lit ? t(S.colorKey(light.color)) : "";
      view.group.dataset.color = lit ? light.color.toLowerCase() : "off";
      view.group.dataset.effect = lit ? light.effect || "solid" : "none";
      view.group.dataset.seeds = String(seeds);
      view.next.classList.toggle("shown", !!expected[k]);
      view.problem.classList.toggle("shown", !!problems[k]);
      var name = S.absPlaceName(place);
      // In the simultaneous opening each hand about to start is played: one pit of each
      // (its lit pits), then both go at once.
      var clickable = playable && place[1] !== "store" && seeds > 0 &&
        (opening ? !!expected[k] : place[0] === mover);
      var chosen = opening && openingPick[place[0]] === place[1];
      view.group.classList.toggle("playable", clickable);
      view.group.classList.toggle("chosen", chosen);
      if (clickable && opening) view.group.setAttribute("aria-pressed", String(chosen));
      else view.group.removeAttribute("aria-pressed");
      if (clickable) {
        var action = opening
          ? t("sim_opening_pick", { n: place[0] + 1, place: S.placeName(place, place[0]) })
          : t("sim_play_pit", { place: S.placeName(place, mover) });
        view.group.setAttribute("tabindex", "0");
        view.group.setAttribute("role", "button");
        view.group.setAttribute(
          "aria-label", action + ". " +
            t("aria_place", { place: name, seeds: S.seeds(seeds), color: S.lightName(light) })
        );
      } else {
        view.group.removeAttribute("tabindex");
        view.group.setAttribute("role", "img");
        view.group.setAttribute(
          "aria-label", t("aria_place", { place: name, seeds: S.seeds(seeds), color: S.lightName(light) })
        );
      }
    });
  }

  function play(group) {
    if (!group.classList.contains("playable")) return;
    var parts = group.dataset.place.split(",");
    var pit = Number(parts[1]);
    if (!isOpening(S.status)) {
      S.report(S.post("/api/sim/move", { pit: pit }));
      return;
    }
    var hand = Number(parts[0]);
    openingPick[hand] = pit;
    var starting = startingHands(S.status);
    if (starting.length === 1) {
      openingPick = [null, null];
      S.report(S.post("/api/sim/move", { pit: pit })); // the other hand is done already
    } else if (openingPick[0] !== null && openingPick[1] !== null) {
      var pits = openingPick;
      openingPick = [null, null];
      S.report(S.post("/api/sim/move", { pits: pits }));
    }
    renderTurn(S.status);
    renderBoard(S.status);
  }

  // The hands about to start in the opening: those with lit pits to pick up from.
  function startingHands(status) {
    var hands = [];
    (status.game.expected || []).forEach(function (p) {
      if (Array.isArray(p) && hands.indexOf(p[0]) < 0) hands.push(p[0]);
    });
    return hands;
  }

  // A pick of one hand's pit waits for the other's only while the game stays as it was.
  var pickedIn = null;
  function keepOpeningPick(status) {
    var game = status.game;
    var key = [game.variant, pitsOf(status), (game.history || []).length, game.phase,
      isOpening(status), canPlay(status)].join(":");
    if (key !== pickedIn) openingPick = [null, null];
    pickedIn = key;
  }

  // The simultaneous opening (RULES.md `simultaneous_opening`): no player to move yet.
  function isOpening(status) {
    var pos = status.game.position;
    return !pos.over && pos.to_move === null;
  }

  function openingExpectation(status) {
    var game = status.game;
    if (game.expected_kind !== "pickup" || game.phase !== "start") return t("expect_opening");
    var starting = startingHands(status);
    if (starting.length === 1) return t("expect_pickup_any", { n: starting[0] + 1 });
    if (openingPick[0] !== null && openingPick[1] === null) return t("sim_opening_other", { n: 2 });
    if (openingPick[1] !== null && openingPick[0] === null) return t("sim_opening_other", { n: 1 });
    return t("expect_opening_pick");
  }

  function expectation(status) {
    var game = status.game;
    var pos = game.position;
    var n = pos.to_move + 1;
    var places = game.expected || [];
    var where = S.placeList(places, pos.to_move);
    // Demo mode on a real board (show.py): a game replayed, nothing for anybody to do.
    if (game.phase === "show") return t("expect_show");
    if (pos.over) return "";
    if (isOpening(status)) return openingExpectation(status);
    if (computersTurn(status) && game.phase === "start" && game.expected_kind === "pickup") {
      return computerExpectation(game.computer);
    }
    switch (game.expected_kind) {
      case "pickup":
        if (game.phase === "relay") return t("expect_relay", { n: n, place: where });
        if (places.length === 1) return t("expect_pickup_one", { n: n, place: where });
        return t("expect_pickup_any", { n: n });
      case "sow":
        return t("expect_sow", { n: n, place: where });
      case "capture":
        return t("expect_capture", { n: n, place: where });
      case "sweep":
        return t("expect_sweep", { place: where });
      case "undo":
        return undoExpectation(status, places);
      default:
        return t("expect_wait");
    }
  }

  // The computer opponent (game.computer): its pit is lit once it has chosen; a person's hand
  // then makes its move as the lights show.
  function computersTurn(status) {
    var computer = status.game.computer;
    var pos = status.game.position;
    return !!computer && computer.player !== null && !pos.over && pos.to_move === computer.player;
  }

  function computerExpectation(computer) {
    if (computer.move !== null) return t("computer_plays", { n: computer.move + 1 });
    if (computer.error) return t("computer_error", { error: computer.error });
    return t("computer_thinking");
  }

  // (The kiosk has no hint button nor match line: one instruction line only.)
  function renderHint(status) {
    if (!document.getElementById("hint")) return;
    var computer = status.game.computer;
    var text = "";
    if (computer && computer.hint !== null) text = t("hint_pit", { n: computer.hint + 1 });
    else if (computer && computer.hint_thinking) text = t("hint_thinking");
    document.getElementById("hint-text").textContent = text;
    document.getElementById("hint").disabled = status.game.position.over;
  }

  // A match of handicap rounds (game.match): the round and the rounds each player won.
  function renderMatch(status) {
    var match = status.game.match;
    var box = document.getElementById("match");
    if (!box) return;
    box.hidden = !match;
    if (!match) return;
    var params = { round: match.round, a: match.won[0], b: match.won[1] };
    box.textContent = t(match.over ? "match_over" : "match_round", params);
  }

  /* A guided undo: what the lit place asks (the lights' too many / too few). */
  function undoExpectation(status, places) {
    var lights = (status.leds && status.leds.places) || {};
    var place = places[0];
    if (!place) return t("expect_wait");
    var light = lights[S.placeKey(place)];
    var key = light && S.colorKey(light.color) === "color_pink" ? "expect_undo_take" : "expect_undo_put";
    return t(key, { place: S.absPlaceName(place) });
  }

  function renderTurn(status) {
    var pos = status.game.position;
    var turn = document.getElementById("turn");
    var a = pos.stores[0];
    var b = pos.stores[1];
    if (pos.over) {
      if (pos.winner === "draw" || pos.winner === null) {
        turn.textContent = t("over_draw", { a: a, b: b });
      } else {
        var w = pos.winner;
        turn.textContent = t("over_win", { n: w + 1, a: pos.stores[w], b: pos.stores[1 - w] });
      }
    } else if (isOpening(status)) {
      turn.textContent = t("turn_both");
    } else {
      turn.textContent = t("turn", { n: pos.to_move + 1 }) + " " +
        t(pos.to_move === 0 ? "turn_bottom" : "turn_top") +
        (computersTurn(status) ? " " + t("computer_label") : "");
    }
    turn.dataset.player = pos.over ? "over" : isOpening(status) ? "both" : String(pos.to_move);
    document.getElementById("expect").textContent = expectation(status);
    var hand = status.game.hand || [0, 0];
    var handText = "";
    if (isOpening(status)) {
      if (hand[0] || hand[1]) {
        handText = t("hand_both", { a: S.seeds(hand[0] || 0), b: S.seeds(hand[1] || 0) });
      }
    } else if (!pos.over && hand[pos.to_move] > 0) {
      handText = t("hand", { seeds: S.seeds(hand[pos.to_move]) });
    }
    document.getElementById("hand").textContent = handText;
  }

  var timerBase = null;
  function renderTimer() {
    var box = document.getElementById("timer");
    var status = S.status;
    var timer = status.game.turn_timer;
    if (!timer || timerBase === null || status.game.position.over || timer.elapsed_s === null) {
      box.textContent = "";
      return;
    }
    // (a running clock goes on between snapshots; one the move stopped stays where it is)
    var s = Math.floor(timer.elapsed_s + (timer.running ? (Date.now() - timerBase) / 1000 : 0));
    var limit = timer.limit_s;
    var left = limit ? Math.ceil(limit - s) : null;
    var text;
    if (limit && (timer.overrun || left <= 0)) {
      text = t(timer.consequence === "pass" ? "timer_over_pass" : "timer_over", { s: s, limit: limit });
    } else if (limit && timer.running && left <= 5) {
      text = t("timer_left", { left: left, limit: limit });
    } else {
      text = limit ? t("timer_limit", { s: s, limit: limit }) : t("timer", { s: s });
    }
    box.textContent = text;
    box.classList.toggle("late", !!limit && (timer.overrun || (timer.running && left <= 5)));
  }

  function isPlayer(n) {
    return n === 0 || n === 1;
  }

  var FIXED_SHOWN = 8; // fixed flags listed in the folded history (the newest)

  function flagItem(flag, mover) {
    var item = S.el("li", {
      class: "flag " + (flag.active ? "active" : "fixed"),
      "data-kind": flag.kind,
      "data-id": String(flag.id),
      "data-player": isPlayer(flag.player) ? String(flag.player) : "",
    });
    item.appendChild(S.el("span", { class: "flag-icon", "aria-hidden": "true" }, flag.active ? "⚠" : "✓"));
    item.appendChild(S.el("span", { class: "flag-text" }, S.flagText(flag, mover)));
    item.appendChild(S.el("span", { class: "flag-state" }, t(flag.active ? "flag_active" : "flag_fixed")));
    return item;
  }

  /* Active problems beside the board; the fixed ones folded into a short history below. */
  function renderFlags(status) {
    var list = document.getElementById("flags");
    var panel = document.getElementById("flags-panel");
    var mover = status.game.position.to_move;
    var newest = status.flags.slice().sort(function (x, y) { return y.id - x.id; });
    var active = newest.filter(function (f) { return f.active; });
    // The kiosk says one thing at a time: the newest problem to put right.
    if (document.body.dataset.page === "kiosk") active = active.slice(0, 1);
    var fixed = newest.filter(function (f) { return !f.active; });
    list.textContent = "";
    active.forEach(function (flag) { list.appendChild(flagItem(flag, mover)); });
    if (active.length === 0) list.appendChild(S.el("li", { class: "flag none" }, t("flags_none")));
    panel.classList.toggle("has-active", active.length > 0);
    var folded = document.getElementById("flags-fixed");
    if (!folded) return; // (the kiosk shows the active problem only)
    var history = document.getElementById("flags-history");
    history.textContent = "";
    fixed.slice(0, FIXED_SHOWN).forEach(function (flag) { history.appendChild(flagItem(flag, mover)); });
    document.getElementById("flags-fixed-summary").textContent = t("flags_fixed_summary", { n: fixed.length });
    folded.hidden = fixed.length === 0;
  }

  var NOTICES_SHOWN = 3; // the newest notices listed open; the others folded below them,
  var WARNINGS_SHOWN = 5; // but for the newest warnings, open however much routine came after

  /* What the daemon told (daemon.notices: a damaged file kept aside, a journal repaired, ...),
     newest first: a few open beside the board, and every recent warning nobody acknowledged
     with them (a demo's routine notices must not fold a damaged file away), the rest folded,
     and a count of those only the log still has (the daemon keeps the newest 20 of each
     severity; one told again is one record, told more often). Text only: a notice names
     files. */
  function renderNotices(status) {
    var panel = document.getElementById("notices-panel");
    if (!panel) return; // (the kiosk: visitors are not told about files)
    var daemon = status.daemon || {};
    var newest = (Array.isArray(daemon.notices) ? daemon.notices : []).filter(function (n) {
      return n && typeof n.text === "string";
    }).reverse();
    var told = newest.reduce(function (sum, n) { return sum + (n.repeats > 1 ? n.repeats : 1); }, 0);
    var total = Math.max(daemon.notices_total || 0, told);
    panel.hidden = newest.length === 0;
    document.getElementById("notices-heading").textContent = t("notices_heading", { n: total });
    var open = document.getElementById("notices");
    var earlier = document.getElementById("notices-earlier");
    open.textContent = "";
    earlier.textContent = "";
    var warnings = 0;
    var folded = 0;
    newest.forEach(function (notice, i) {
      var warning = notice.level === "warning" && !notice.acknowledged;
      var shown = i < NOTICES_SHOWN || (warning && warnings < WARNINGS_SHOWN);
      if (warning) warnings += 1;
      if (!shown) folded += 1;
      (shown ? open : earlier).appendChild(S.noticeItem(notice));
    });
    document.getElementById("notices-more").hidden = folded <= 0;
    document.getElementById("notices-more-summary").textContent = t("notices_earlier", { n: folded });
    var logged = document.getElementById("notices-logged");
    logged.hidden = total <= told;
    logged.textContent = t("notices_logged", { n: total - told });
  }

  /* The lit places grouped by what they show: "blue, pulsing: Player 1, pit 1 ▼; ...". */
  function renderLights(status) {
    var list = document.getElementById("lights");
    var lights = (status.leds && status.leds.places) || {};
    var expected = keysOf(status.game.expected);
    var problems = keysOf(
      status.flags.filter(function (f) { return f.active; }).map(function (f) { return f.at; })
    );
    var groups = {};
    var order = [];
    Object.keys(lights).sort().forEach(function (k) {
      var light = lights[k];
      if (!S.isLit(light)) return;
      var group = light.color.toLowerCase() + "|" + (light.effect || "solid");
      if (!groups[group]) {
        groups[group] = { light: light, names: [] };
        order.push(group);
      }
      var parts = k.split(",");
      var place = [Number(parts[0]), parts[1] === "store" ? "store" : Number(parts[1])];
      var name = S.absPlaceName(place);
      if (expected[k]) name += " ▼";
      if (problems[k]) name += " ⚠";
      groups[group].names.push(name);
    });
    list.textContent = "";
    order.forEach(function (group) {
      var light = groups[group].light;
      var item = S.el("li", { "data-color": light.color.toLowerCase() });
      var swatch = S.el("span", { class: "swatch fx-" + (light.effect || "solid"), "aria-hidden": "true" });
      swatch.style.backgroundColor = light.color;
      item.appendChild(swatch);
      var named = S.lightName(light);
      if (S.colorKey(light.color) === "color_dim_white") named += " (" + t("legend_path") + ")";
      item.appendChild(S.el("strong", null, named));
      item.appendChild(document.createTextNode(": " + groups[group].names.join(t("list_sep_places"))));
      list.appendChild(item);
    });
    if (!list.firstChild) list.appendChild(S.el("li", { class: "none" }, t("legend_none")));
  }

  function renderHistory(status) {
    var list = document.getElementById("history");
    list.textContent = "";
    var history = status.game.history || [];
    history.forEach(function (move) {
      list.appendChild(
        S.el("li", { value: String(move.ply) }, t("history_item", { p: move.player + 1, n: move.pit + 1 }))
      );
    });
    if (history.length === 0) list.appendChild(S.el("li", { class: "none" }, t("history_none")));
    list.scrollTop = list.scrollHeight;
  }

  function optionValue(value) {
    if (value === true) return t("value_yes");
    if (value === false) return t("value_no");
    if (value === null || value === undefined) return t("value_none");
    if (Array.isArray(value)) return value.join(", ");
    if (typeof value === "object") return JSON.stringify(value);
    if (typeof value === "string" && S.strings["optval_" + value] !== undefined) {
      return t("optval_" + value);
    }
    return String(value);
  }

  function renderGame(status) {
    var game = status.game;
    var vkey = "variant_" + game.variant;
    document.getElementById("variant").textContent = S.strings[vkey] ? t(vkey) : game.variant;
    var mkey = "mode_" + status.mode;
    document.getElementById("mode").textContent = S.strings[mkey] ? t(mkey) : status.mode;
    var body = document.querySelector("#options tbody");
    body.textContent = "";
    Object.keys(game.options || {}).forEach(function (name) {
      var row = S.el("tr", { "data-option": name });
      var label = S.strings["opt_" + name] ? t("opt_" + name) : name;
      row.appendChild(S.el("th", { scope: "row", title: name }, label));
      row.appendChild(S.el("td", null, optionValue(game.options[name])));
      body.appendChild(row);
    });
  }

  /* Why a mistake cannot be acted out now (a string key), or null when it can. The buttons
     are disabled rather than answered with a refusal. */
  function mistakeBlocked(status) {
    if (status.game.position.over) return "sim_wait_over";
    if (isOpening(status)) return "sim_wait_opening";
    if (!canPlay(status)) return "sim_wait_busy";
    return null;
  }

  /* Teach mode (and the kiosk): the newest rule event in one sentence, or, before an oware
     move, that an opponent without seeds must be fed. */
  function explanation(status) {
    var game = status.game;
    var pos = game.position;
    var mover = pos.to_move;
    if (!pos.over && isPlayer(mover) && game.options.must_feed === true) {
      var other = pos.pits[1 - mover].reduce(function (a, b) { return a + b; }, 0);
      if (other === 0) return t("explain_must_feed", { n: mover + 1, m: 2 - mover });
    }
    var events = game.events || [];
    if (!events.length) return "";
    var event = events[events.length - 1];
    var key = "explain_" + event.kind + (event.rule ? "_" + event.rule : "");
    var params = { n: event.player + 1, m: 2 - event.player };
    return S.strings[key] !== undefined ? t(key, params) : "";
  }

  function renderExplain(status) {
    var box = document.getElementById("explain");
    if (!box) return;
    var teaching = status.mode === "teach" || document.body.dataset.page === "kiosk";
    var text = teaching ? explanation(status) : "";
    box.textContent = text;
    box.hidden = !text;
    var events = status.game.events || [];
    box.dataset.event = events.length ? String(events[events.length - 1].n) : "";
  }

  /* The kiosk while nobody plays (the LEDs run their attract chase): three short lines on
     sowing in turn, and a seed that goes round player 1's side of the board on the screen. */
  var attractTimer = null;
  var attractStep = 0;
  function attractRing(status) {
    var n = pitsOf(status);
    var ring = [];
    for (var i = 0; i < n; i++) ring.push("0," + i);
    ring.push("0,store");
    for (var j = 0; j < n; j++) ring.push("1," + j);
    return ring;
  }

  function attractTick() {
    var box = document.getElementById("attract");
    box.textContent = t("attract_" + (1 + (Math.floor(attractStep / 5) % 3)));
    var ring = attractRing(S.status);
    var lit = ring[attractStep % ring.length];
    document.querySelectorAll("#board .place").forEach(function (group) {
      group.classList.toggle("attract-seed", group.dataset.place === lit);
    });
    box.dataset.place = lit;
    attractStep += 1;
  }

  function renderAttract(status) {
    var box = document.getElementById("attract");
    if (!box) return;
    var on = !!(status.daemon && status.daemon.idle);
    box.hidden = !on;
    document.body.classList.toggle("attracting", on);
    if (on && attractTimer === null) {
      attractStep = 0;
      attractTick();
      attractTimer = setInterval(attractTick, 700);
    } else if (!on && attractTimer !== null) {
      clearInterval(attractTimer);
      attractTimer = null;
      document.querySelectorAll("#board .attract-seed").forEach(function (group) {
        group.classList.remove("attract-seed");
      });
    }
  }

  function renderSim(status) {
    var panel = document.getElementById("sim-panel");
    if (!panel) return;
    panel.hidden = !status.sim;
    var blocked = mistakeBlocked(status);
    panel.querySelectorAll("button.mistake").forEach(function (b) {
      b.disabled = blocked !== null;
    });
    document.getElementById("sim-wait").textContent = blocked ? t(blocked) : "";
  }

  /* "New game" for the players: one click when the game is over or not begun, else a second
     click to confirm (a half-played game is not thrown away by one stray tap). */
  var newGameTimer = null;
  function newGameButton() {
    var button = document.getElementById("new-game");
    if (!button) return;
    function reset() {
      button.dataset.confirm = "no";
      button.textContent = t("new_game_button");
    }
    button.addEventListener("click", function () {
      var game = S.status.game;
      var midGame = !game.position.over && (game.history || []).length > 0;
      if (midGame && button.dataset.confirm !== "yes") {
        button.dataset.confirm = "yes";
        button.textContent = t("new_game_confirm");
        clearTimeout(newGameTimer);
        newGameTimer = setTimeout(reset, 5000);
        return;
      }
      clearTimeout(newGameTimer);
      reset();
      button.disabled = true;
      S.report(S.post("/api/new_game", {})).then(function () {
        button.disabled = false;
      });
    });
  }

  function renderNewGame(status) {
    var button = document.getElementById("new-game");
    if (!button) return;
    button.classList.toggle("prominent", status.game.position.over);
  }

  function render(status) {
    keepOpeningPick(status);
    renderTurn(status);
    renderHint(status);
    renderMatch(status);
    renderFlags(status);
    renderNotices(status);
    renderBoard(status);
    if (document.getElementById("lights")) renderLights(status);
    if (document.getElementById("history")) renderHistory(status);
    if (document.getElementById("options")) renderGame(status);
    renderSim(status);
    renderNewGame(status);
    renderExplain(status);
    renderAttract(status);
    timerBase = Date.now();
    renderTimer();
  }

  document.querySelectorAll("button.mistake").forEach(function (button) {
    button.addEventListener("click", function () {
      S.report(S.post("/api/sim/mistake", { kind: button.dataset.kind }));
    });
  });

  var hintButton = document.getElementById("hint");
  if (hintButton) {
    hintButton.addEventListener("click", function () {
      S.report(S.post("/api/hint", {}));
    });
  }

  newGameButton();
  render(S.status);
  setInterval(renderTimer, 1000);
  S.listen(render);
})();
