/* sowboard: the sensor page, one row per load cell, live. */
(function () {
  "use strict";

  var S = window.Sowboard;
  var t = S.t;

  function fixed(value, digits) {
    return typeof value === "number" && isFinite(value) ? value.toFixed(digits) : "–";
  }

  /* What the daemon lost by falling behind its scales (daemon.behind): a notice while it goes
     on (anything in the last minute), a plain line once it stopped, nothing if it never did. */
  function behindLines(behind) {
    var lines = [];
    if (behind.dropped_frames_last_minute) {
      lines.push(t("behind_dropped", {
        minute: behind.dropped_frames_last_minute,
        total: behind.dropped_frames,
      }));
    } else if (behind.dropped_frames) {
      lines.push(t("behind_dropped_before", { total: behind.dropped_frames }));
    }
    if (behind.skipped_s_last_minute) {
      lines.push(t("behind_skipped", {
        minute: fixed(behind.skipped_s_last_minute, 1),
        total: fixed(behind.skipped_s, 1),
      }));
    } else if (behind.skipped_s) {
      lines.push(t("behind_skipped_before", { total: fixed(behind.skipped_s, 1) }));
    }
    return lines;
  }

  function renderBehind(behind) {
    var line = document.getElementById("behind");
    var lines = behind ? behindLines(behind) : [];
    line.hidden = !lines.length;
    line.textContent = lines.join(" ");
    var now = behind && (behind.dropped_frames_last_minute || behind.skipped_s_last_minute);
    line.className = now ? "notice" : "";
  }

  function render(status) {
    var board = status.board || {};
    var sensors = status.sensors || [];
    document.getElementById("board-name").textContent = t("sensors_board", {
      name: board.name || "?",
      cells: sensors.length,
    });
    var leds = status.leds || {};
    document.getElementById("leds-power").textContent = t("leds_power", {
      a: fixed(leds.current_a, 2),
      b: fixed(typeof leds.brightness === "number" ? leds.brightness * 100 : null, 0),
    });
    var mqtt = (status.daemon || {}).mqtt;
    var mqttLine = document.getElementById("mqtt");
    mqttLine.hidden = !mqtt;
    if (mqtt) {
      mqttLine.textContent = t("mqtt_line", {
        url: mqtt.url,
        id: mqtt.board_id,
        state: mqtt.connected ? t("mqtt_connected") : t("mqtt_away") + (mqtt.error ? " (" + mqtt.error + ")" : ""),
        dropped: mqtt.dropped,
      });
    }
    renderBehind((status.daemon || {}).behind);
    var idle = board.idle_cells || [];
    document.getElementById("idle-cells").textContent = idle.length
      ? t("sensors_idle", { cells: idle.join(", ") })
      : "";
    var body = document.querySelector("#sensors tbody");
    body.textContent = "";
    sensors.forEach(function (cell) {
      var row = S.el("tr", { "data-cell": String(cell.cell), class: cell.fault ? "fault" : "" });
      row.appendChild(S.el("td", { class: "num" }, String(cell.cell)));
      row.appendChild(S.el("td", null, cell.place ? S.absPlaceName(cell.place) : "–"));
      row.appendChild(S.el("td", { class: "num" }, typeof cell.raw === "number" ? String(cell.raw) : "–"));
      row.appendChild(S.el("td", { class: "num" }, fixed(cell.grams, 1)));
      row.appendChild(S.el("td", { class: "num" }, fixed(cell.noise_g, 3)));
      row.appendChild(S.el("td", { class: "num" }, fixed(cell.rate_sps, 1)));
      row.appendChild(
        S.el("td", { class: "fault-cell" }, cell.fault ? "⚠ " + cell.fault : t("fault_none"))
      );
      body.appendChild(row);
    });
  }

  render(S.status);
  S.listen(render);
})();
