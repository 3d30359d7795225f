"""Every string the status page shows, in English and Japanese.

Strings are templates with `{name}` placeholders; the server fills them with `t()` and the page's
JavaScript fills the same templates (it gets the whole table of the page's language). Players
and pits are counted from 1 on the page, as people count them; the API keeps the 0-based indices
of RULES.md section 1.

The language is chosen by `pick_language`: an explicit `?lang=` switch first, then the `lang`
cookie the switch leaves, then the browser's Accept-Language, then English.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

LANGUAGES: tuple[str, ...] = ("en", "ja")
DEFAULT_LANGUAGE = "en"
LANGUAGE_NAMES: dict[str, str] = {"en": "English", "ja": "日本語"}
LANG_COOKIE = "lang"

EN: dict[str, str] = {
    # page chrome
    "app_name": "sowboard",
    "title_board": "The board",
    "title_sensors": "Sensors",
    "title_admin": "Admin",
    "nav_label": "Pages",
    "nav_board": "Board",
    "nav_sensors": "Sensors",
    "nav_admin": "Admin",
    "lang_label": "Language",
    "noscript": "This page needs JavaScript to show the board as it changes.",
    "conn_connecting": "Connecting…",
    "conn_live": "Live",
    "conn_polling": "Updating every second",
    "conn_offline": "No connection to the board",
    # places
    "player": "Player {n}",
    "pit_short": "pit {n}",
    "store_short": "store",
    "place_own_pit": "pit {n}",
    "place_other_pit": "Player {p}'s pit {n}",
    "place_own_store": "your store",
    "place_other_store": "Player {p}'s store",
    "place_pit_of": "Player {p}, pit {n}",
    "place_store_of": "Player {p}, store",
    "place_unknown": "somewhere on the board",
    "list_sep": ", ",
    "list_sep_places": "; ",
    "list_or": "{a} or {b}",
    "seeds_n": "{n} seeds",
    "seeds_1": "1 seed",
    # the board
    "board_heading": "Board",
    "board_svg_title": "The board. Player 1 sits at the bottom, Player 2 at the top.",
    "aria_place": "{place}: {seeds}. Light: {color}.",
    "marker_next": "▼ next step here",
    "marker_problem": "⚠ problem here",
    "marker_legend": "On the board: ▼ marks where the next step goes, ⚠ marks a problem.",
    "legend_heading": "Lights",
    "legend_none": "No lights are on.",
    "effect_pulse": "pulsing",
    "effect_blink": "blinking",
    "effect_fast_blink": "blinking fast",
    "effect_chase": "slowly running",
    "effect_solid": "steady",
    "color_off": "off",
    "color_red": "red",
    "color_orange": "orange",
    "color_yellow": "yellow",
    "color_green": "green",
    "color_cyan": "light blue",
    "color_blue": "blue",
    "color_purple": "purple",
    "color_pink": "pink",
    "color_white": "white",
    "color_dim_white": "dim white",
    "legend_path": "the path the seeds in the hand will take",
    # turn and expectations
    "turn": "Player {n}'s turn",
    "turn_bottom": "(bottom row)",
    "turn_top": "(top row)",
    "turn_both": "Both players at once",
    "expect_opening_pick": (
        "Both players: pick up all the seeds from one of your lit pits, at the same time."
    ),
    "expect_opening": "Both players sow at once: follow the lights on your own side.",
    "hand_both": "In the hands: Player 1 {a}, Player 2 {b}",
    "sim_opening_pick": "Start player {n} from {place}",
    "sim_opening_other": "Now choose player {n}'s pit.",
    "hand": "In the hand: {seeds}",
    "expect_pickup_one": "Player {n}: pick up all the seeds in {place}.",
    "expect_pickup_any": "Player {n}: pick up all the seeds from one of your lit pits.",
    "expect_relay": (
        "Player {n}: the last seed fell into a pit with seeds. "
        "Pick up all the seeds in {place} and keep sowing."
    ),
    "expect_sow": "Player {n}: sow one seed in {place}.",
    "expect_capture": "Player {n}: move the seeds in {place} to your store.",
    "expect_sweep": "Move the seeds left in {place} to the store.",
    "expect_wait": "Waiting for the board…",
    "expect_show": "Demo: the lights replay a game, seed by seed. Watch where each seed goes.",
    "expect_undo_take": (
        "Taking back the last move: take seeds out of {place}, one at a time, "
        "until its light moves on."
    ),
    "expect_undo_put": (
        "Taking back the last move: put the seeds from your hand into {place} "
        "until its light moves on."
    ),
    "over_win": "Game over: Player {n} wins, {a} to {b}!",
    "over_draw": "Game over: a draw, {a} to {b}.",
    "timer": "Time this turn: {s} s",
    "timer_limit": "Time this turn: {s} s of {limit} s",
    "timer_left": "{left} s left to start a move (of {limit} s)",
    "timer_over": "Time is up: {s} s of {limit} s (noted in the record)",
    "timer_over_pass": "Time is up ({limit} s): the turn passes",
    # the computer opponent and the hint
    "computer_label": "(the computer)",
    "computer_plays": "The computer plays pit {n}: pick up all its seeds and sow them as the "
    "lights show.",
    "computer_thinking": "The computer is thinking…",
    "computer_error": "The computer could not choose a move: {error}",
    "hint_button": "Hint",
    "hint_thinking": "Looking for a good move…",
    "hint_pit": "Hint: pit {n}",
    "match_round": "Match, round {round}: rounds won Player 1 {a}, Player 2 {b}",
    "match_over": "The match is over after round {round}: rounds won Player 1 {a}, Player 2 {b}",
    # teach mode: each rule event in one sentence
    "explain_relay": (
        "Player {n}: the last seed fell into a pit with seeds. "
        "Pick them all up again and keep sowing."
    ),
    "explain_capture_opposite": (
        "Player {n} captures: the last seed fell into their own empty pit, "
        "so it and the seeds opposite go to their store."
    ),
    "explain_capture_counts": (
        "Player {n} captures: the last seed made 2 or 3 in the other row, "
        "so those seeds go to their store."
    ),
    "explain_extra_turn": "Player {n}'s last seed fell into their own store: Player {n} plays again.",
    "explain_pass": "Player {n} has no seeds to play and passes.",
    "explain_sweep": "The game is over: the seeds left in the pits go to the stores.",
    "explain_must_feed": "Player {m} has no seeds: Player {n} must play a pit that gives them some.",
    "explain_grand_slam": (
        "Player {n}'s move would take all of Player {m}'s seeds (a grand slam), so it takes none."
    ),
    # the kiosk's attract loop while nobody plays
    "attract_1": "Come and play! Pick up all the seeds from one pit on your side.",
    "attract_2": "Drop one seed into each pit as you go round: the white light shows where.",
    "attract_3": "The pits you may start from glow in your colour. Touch the seeds to begin!",
    # flags
    "flags_heading": "Problems",
    "flag_by": "Player {n}: {text}",
    "flags_fixed_summary": "Fixed problems ({n})",
    # what the daemon told (daemon.notices: damaged files kept aside, journal repairs, ...)
    "notices_heading": "Notices from the board ({n})",
    "notices_help": (
        "What the board's computer noted, newest first; warnings stay open. Its log has them too."
    ),
    "notice_warning": "Warning",
    "notice_acknowledged": "read",
    "notice_repeats": "told {n} times",
    "notices_earlier": "Earlier notices ({n})",
    "notices_logged": "{n} older notices are only in the log.",
    "new_game_button": "New game",
    "new_game_confirm": "Click again to start a new game",
    "sim_wait_over": "The game is over: start a new game to make mistakes again.",
    "sim_wait_opening": "In the opening both hands play at once: mistakes come after it.",
    "sim_wait_busy": "Wait until the move is done.",
    "record_numbering": (
        "On this page pits count from 1. In the record file they count from 0 "
        "(pit 1 here is 0 there), as `sowboard replay` reads them."
    ),
    "error_status": "The board said no ({status}).",
    "error_field_command": "This cannot be done right now.",
    "flags_none": "No problems. Well done!",
    "flag_fixed": "fixed",
    "flag_active": "to fix",
    "flag_wrong_start": "Seeds were lifted from {at}, which cannot be played now. Put them back.",
    "flag_not_all_lifted": "Some seeds were left in {at}. Pick up all of them.",
    "flag_wrong_pit": "A seed went into {at}; it belongs in {expected}. Take it back.",
    "flag_extra_seed": (
        "More than one seed went into {at}. Take the extra seeds back: one seed at a time."
    ),
    "flag_opponent_store": (
        "A seed went into {at}. Nobody sows into the other player's store: take it back."
    ),
    "flag_seed_lost": (
        "A seed went missing; it may have fallen off the board. Find it and put it in {expected}."
    ),
    "flag_seed_lost_anywhere": (
        "A seed went missing; it may have fallen off the board. Find it and put it back."
    ),
    "flag_foreign_seed": "A seed that is not part of the game appeared in {at}. Take it out.",
    "flag_board_mismatch": "The seeds in {at} do not match the game. Check that place.",
    "flag_sensor_fault": "The scale under {at} is not working ({detail}).",
    "flag_link_fault": "The board's scales cannot be read ({detail}). Check the cable.",
    "flag_write_failed": "A file cannot be saved ({detail}). Is the memory card full?",
    "flag_unknown": 'Problem "{kind}" at {at}.',
    # history, record, game
    "history_heading": "Moves",
    "history_none": "No moves yet.",
    "history_item": "Player {p} played pit {n}",
    "record_download": "Download the game record (JSON)",
    "game_heading": "Game",
    "variant_label": "Rules",
    "variant_congkak": "Congkak",
    "variant_kalah": "Kalah",
    "variant_oware": "Oware",
    "options_label": "Options",
    "mode_label": "Mode",
    "mode_play": "Play",
    "mode_teach": "Teach",
    "mode_demo": "Demo",
    "value_yes": "yes",
    "value_no": "no",
    "value_none": "none",
    "opt_pits": "Pits per row",
    "opt_seeds": "Seeds in each pit at the start",
    "opt_sow_own_store": "Sowing passes through your own store",
    "opt_laps": "Laps",
    "opt_extra_turn": "Last seed in your store: play again",
    "opt_capture": "Capture",
    "opt_capture_requires_opposite": "Capture only when the opposite pit has seeds",
    "opt_capture_counts": "Totals that capture",
    "opt_grand_slam": "Grand slam",
    "opt_skip_origin": "Long laps skip the starting pit",
    "opt_must_feed": "Give seeds to an opponent who has none",
    "opt_no_move": "When a player has no seeds",
    "opt_end": "The game ends",
    "opt_end_sweep": "Seeds left at the end go to",
    "opt_cycle": "Repeated position",
    "opt_simultaneous_opening": "Both players start at once",
    "opt_opening_next": "After the opening, first to move",
    "opt_handicap_rounds": "Handicap rounds",
    "opt_handicap_partial": "A pit that cannot be filled",
    "opt_move_time_limit_s": "Seconds to start a move",
    "opt_move_time_consequence": "A move not started in time",
    "optval_single": "one lap",
    "optval_relay": "relay: keep sowing from a pit with seeds",
    "optval_opposite": "the opposite pit",
    "optval_counts": "2 or 3 seeds",
    "optval_none": "none",
    "optval_no_capture": "captures nothing",
    "optval_forbidden": "not allowed",
    "optval_allowed": "allowed",
    "optval_pass": "pass",
    "optval_end": "the game ends",
    "optval_all_pits_empty": "when every pit is empty",
    "optval_side_empty": "when a row is empty",
    "optval_majority": "when a player has more than half",
    "optval_owner": "the row's owner",
    "optval_emptier": "the player whose row is empty",
    "optval_split_own": "each takes their own row",
    "optval_slower": "the slower player",
    "optval_faster": "the faster player",
    "optval_keep": "keep it",
    "optval_burn": "close it (its seeds go to the store)",
    # the simulated board
    "sim_heading": "Play on the simulated board",
    "sim_help": (
        "Click a lit pit of the player whose turn it is to play it. "
        "The buttons make a mistake on purpose, to show how the board tells you."
    ),
    "sim_mistakes": "Make a mistake",
    "sim_play_pit": "Play {place}",
    "mistake_wrong_start": "Start from a wrong pit",
    "mistake_not_all_lifted": "Leave seeds behind",
    "mistake_wrong_pit": "Sow into the wrong pit",
    "mistake_extra_seed": "Drop two seeds at once",
    "mistake_opponent_store": "Sow into the other store",
    "mistake_seed_lost": "Drop a seed off the board",
    "mistake_foreign_seed": "Add a seed from outside",
    "error_refused": "The board said no: {error}",
    "error_network": "Could not reach the board.",
    # sensors
    "sensors_heading": "Sensors",
    "sensors_help": "A load cell under every pit and store weighs the seeds.",
    "sensors_board": "Board: {name}, {cells} cells",
    "sensors_idle": "Unused cells: {cells}",
    "col_cell": "Cell",
    "col_place": "Place",
    "col_raw": "Raw reading",
    "col_grams": "Weight (g)",
    "col_noise": "Noise (g rms)",
    "col_rate": "Samples per second",
    "col_fault": "Last fault",
    "fault_none": "none",
    "leds_power": "LEDs: {a} A, brightness {b} %",
    # publishing to the hall (sensors page) and the hall page
    "mqtt_line": "Hall broker {url} as “{id}”: {state}. Messages dropped: {dropped}.",
    "mqtt_connected": "connected",
    "mqtt_away": "not connected",
    # what the daemon lost by falling behind its scales (sensors page, daemon.behind)
    "behind_dropped": "Scale readings lost: {minute} in the last minute, {total} since the start. The board's computer is not keeping up with the scales, so a seed may go unseen.",
    "behind_dropped_before": "Scale readings lost since the start: {total} (none in the last minute).",
    "behind_skipped": "The simulated board skipped {minute} s in the last minute, {total} s since the start: the computer is not keeping up with it.",
    "behind_skipped_before": "The simulated board skipped {total} s since the start (none in the last minute).",
    "hall_nav": "Hall",
    "hall_title": "The hall",
    "hall_board_title": "A board in the hall",
    "hall_heading": "Every board in the hall",
    "hall_help": "Boards that published to {url}. Click a board for its detail.",
    "hall_empty": "No board has published yet.",
    "hall_no_status": "No status from this board yet.",
    "hall_no_broker": "The hall cannot reach the broker ({error}): every board is shown offline.",
    "hall_online": "online",
    "hall_offline": "offline",
    "hall_unknown": "unknown",
    "hall_facts": "{moves} moves · {mode} · loop {lag} ms · dropped {dropped} · lost {lost}",
    "hall_back": "← Back to the hall",
    "hall_events_heading": "Latest events",
    "hall_health_heading": "Health",
    "hall_event_move": "Move {ply}: Player {n}, pit {pit}",
    "hall_event_undo": "Taken back to move {moves}",
    "hall_event_record": "Game over after {moves} moves",
    "hall_variant": "Variant",
    "hall_board_name": "Board file",
    "hall_state": "State",
    "hall_lag": "Loop lag (p99)",
    "hall_dropped": "Messages dropped by the board",
    "hall_lost": "Events lost on the way",
    "hall_received": "Events received",
    "hall_behind": "Scale readings lost",
    "hall_behind_figures": "{total} ({minute} in the last minute)",
    # the board's warning notices (health.warnings: a damaged file kept aside, readings lost)
    "hall_warnings_card": "Unread warnings from the board: {n}, the last at",
    "hall_warnings_heading": "Warnings from the board ({n})",
    "hall_warnings_help": (
        "What the board's computer noted that someone must act on or know, newest first,"
        " since it started. Its log and its own page have them too."
    ),
    "hall_warnings_none": "None.",
    "hall_warnings_unknown": "This board does not send its warnings (an older sowboard).",
    "hall_warnings_logged": "{n} older warnings are only in the board's log.",
    # admin
    "admin_heading": "Admin",
    "admin_help": "These controls need the admin PIN.",
    "admin_no_pin": "No admin PIN is set on this board, so these controls are off.",
    "open_without_pin": "This page is open to the network and no admin PIN is set "
    "(web.admin_pin in the configuration).",
    "pin_label": "PIN",
    "login": "Log in",
    "logout": "Log out",
    "logged_in": "Logged in.",
    "logged_out": "Not logged in.",
    "new_game_heading": "New game",
    "new_game_variant": "Rules",
    "new_game_options_help": "The rules' own options are set; change only what you want different.",
    "error_whole_number": "a whole number is needed",
    "error_whole_numbers": "whole numbers separated by commas are needed",
    "new_game_start": "Start a new game",
    "new_game_opponent": "The computer plays",
    "opponent_none": "nobody (two people play)",
    "opponent_player0": "Player 1 (moves first)",
    "opponent_player1": "Player 2",
    "new_game_level": "The computer's level (1: a young child can win, 5: strongest)",
    "new_game_match": "A match of handicap rounds (each round starts from the seeds won)",
    "undo_heading": "Undo",
    "undo": "Take back the last move",
    "undo_nothing": "There is no move to take back yet.",
    "mode_set": "Set the mode",
    "calibrate_heading": "Calibrate the scales",
    "calibrate_stage": "Stage",
    "stage_empty": "1. The board is empty",
    "stage_layout": "2. Find which cell is under which place",
    "stage_reference": "3. A reference weight is in place",
    "calibrate_grams": "Reference weight (g)",
    "calibrate_go": "Calibrate",
    "recording_heading": "Recording",
    "recording_help": "Save the last minutes of the scales' raw readings with the steps and "
    "flags, for a bug report (also saved a few seconds after every flag).",
    "recording_save": "Save a recording",
    "recording_saved": "Saved as {file} in the data directory's recordings folder.",
    "notices_ack_heading": "Warnings",
    "notices_ack_help": "Mark the board's warnings as read: the board page folds them and the "
    "hall stops counting them, until one is told again.",
    "notices_ack": "Acknowledge the warnings",
    "notices_acked": "{n} warnings acknowledged.",
    "done": "Done.",
}

JA: dict[str, str] = {
    # page chrome
    "app_name": "sowboard",
    "title_board": "盤",
    "title_sensors": "センサー",
    "title_admin": "管理",
    "nav_label": "ページ",
    "nav_board": "盤",
    "nav_sensors": "センサー",
    "nav_admin": "管理",
    "lang_label": "言語",
    "noscript": "盤の動きを表示するには JavaScript が必要です。",
    "conn_connecting": "接続中…",
    "conn_live": "ライブ",
    "conn_polling": "1秒ごとに更新中",
    "conn_offline": "盤につながっていません",
    # places
    "player": "プレイヤー{n}",
    "pit_short": "穴{n}",
    "store_short": "ゴール",
    "place_own_pit": "穴{n}",
    "place_other_pit": "プレイヤー{p}の穴{n}",
    "place_own_store": "自分のゴール",
    "place_other_store": "プレイヤー{p}のゴール",
    "place_pit_of": "プレイヤー{p}・穴{n}",
    "place_store_of": "プレイヤー{p}・ゴール",
    "place_unknown": "盤のどこか",
    "list_sep": "、",
    "list_sep_places": "、",
    "list_or": "{a}か{b}",
    "seeds_n": "種{n}個",
    "seeds_1": "種1個",
    # the board
    "board_heading": "盤",
    "board_svg_title": "盤。プレイヤー1は下側、プレイヤー2は上側に座ります。",
    "aria_place": "{place}:{seeds}。ライト:{color}。",
    "marker_next": "▼ 次はここ",
    "marker_problem": "⚠ ここに問題",
    "marker_legend": "盤の上の ▼ は次に種を動かす場所、⚠ は問題のある場所です。",
    "legend_heading": "ライト",
    "legend_none": "ライトは消えています。",
    "effect_pulse": "ゆっくり点滅",
    "effect_blink": "点滅",
    "effect_fast_blink": "速く点滅",
    "effect_chase": "ゆっくり流れる",
    "effect_solid": "点灯",
    "color_off": "消灯",
    "color_red": "赤",
    "color_orange": "オレンジ",
    "color_yellow": "黄",
    "color_green": "緑",
    "color_cyan": "水色",
    "color_blue": "青",
    "color_purple": "紫",
    "color_pink": "ピンク",
    "color_white": "白",
    "color_dim_white": "うすい白",
    "legend_path": "手の中の種がこれから入る道",
    # turn and expectations
    "turn": "プレイヤー{n}の番です",
    "turn_bottom": "(下の列)",
    "turn_top": "(上の列)",
    "turn_both": "二人同時に打ちます",
    "expect_opening_pick": "二人とも:光っている自分の穴を1つ選んで、同時に種を全部取ってください。",
    "expect_opening": "二人同時にまいています。自分の側の光に従ってください。",
    "hand_both": "手の中:プレイヤー1 {a}個、プレイヤー2 {b}個",
    "sim_opening_pick": "プレイヤー{n}は{place}から始める",
    "sim_opening_other": "次にプレイヤー{n}の穴を選んでください。",
    "hand": "手の中:{seeds}",
    "expect_pickup_one": "プレイヤー{n}:{place}の種を全部取ってください。",
    "expect_pickup_any": "プレイヤー{n}:光っている自分の穴を1つ選んで、種を全部取ってください。",
    "expect_relay": (
        "プレイヤー{n}:最後の種が種の入った穴に入りました。"
        "{place}の種を全部取って、続けて配ってください。"
    ),
    "expect_sow": "プレイヤー{n}:{place}に種を1個入れてください。",
    "expect_capture": "プレイヤー{n}:{place}の種を自分のゴールに移してください。",
    "expect_sweep": "{place}に残った種をゴールに移してください。",
    "expect_wait": "盤を待っています…",
    "expect_show": "デモ:ライトがゲームを種1つずつ見せています。種がどこに行くか見てください。",
    "expect_undo_take": "さっきの手をもどします:{place}から種を1個ずつ取ってください。光がうつるまでです。",
    "expect_undo_put": "さっきの手をもどします:手の中の種を{place}に入れてください。光がうつるまでです。",
    "over_win": "ゲーム終了:プレイヤー{n}の勝ち({a}対{b})!",
    "over_draw": "ゲーム終了:引き分け({a}対{b})。",
    "timer": "この番の時間:{s}秒",
    "timer_limit": "この番の時間:{s}秒 / {limit}秒",
    "timer_left": "手を始めるまであと{left}秒({limit}秒まで)",
    "timer_over": "時間切れ:{s}秒 / {limit}秒(記録に残ります)",
    "timer_over_pass": "時間切れ({limit}秒):番が相手に移ります",
    "computer_label": "(コンピューター)",
    "computer_plays": "コンピューターは穴{n}を打ちます。その穴の種を全部取り、ライトのとおりにまいてください。",
    "computer_thinking": "コンピューターが考えています…",
    "computer_error": "コンピューターが手を選べませんでした:{error}",
    "hint_button": "ヒント",
    "hint_thinking": "よい手を探しています…",
    "hint_pit": "ヒント:穴{n}",
    "match_round": "ハンディ戦 第{round}ラウンド:勝ったラウンド プレイヤー1 {a}、プレイヤー2 {b}",
    "match_over": "ハンディ戦は第{round}ラウンドで終わりました:勝ったラウンド プレイヤー1 {a}、プレイヤー2 {b}",
    # teach mode: each rule event in one sentence
    "explain_relay": (
        "プレイヤー{n}:さいごの種が種のある穴に入りました。その穴の種をぜんぶ取って、またまきましょう。"
    ),
    "explain_capture_opposite": (
        "プレイヤー{n}がとりました:さいごの種が自分の空の穴に入ったので、"
        "その種と向かいの種が自分のゴールに入ります。"
    ),
    "explain_capture_counts": (
        "プレイヤー{n}がとりました:さいごの種で相手の穴が2個か3個になったので、"
        "その種が自分のゴールに入ります。"
    ),
    "explain_extra_turn": "プレイヤー{n}のさいごの種が自分のゴールに入りました。もう一回プレイヤー{n}の番です。",
    "explain_pass": "プレイヤー{n}はまく種がないので、パスします。",
    "explain_sweep": "ゲームがおわりました。穴にのこった種はゴールに入ります。",
    "explain_must_feed": "プレイヤー{m}の種がありません。プレイヤー{n}は、相手に種がとどく穴をえらんでください。",
    "explain_grand_slam": (
        "プレイヤー{n}の手でプレイヤー{m}の種がぜんぶなくなってしまうので(グランドスラム)、何もとれません。"
    ),
    # the kiosk's attract loop while nobody plays
    "attract_1": "あそんでみよう!自分の側の穴を1つえらんで、種をぜんぶ取ります。",
    "attract_2": "まわりながら、穴に種を1個ずつ入れます。白い光が入れる場所です。",
    "attract_3": "はじめられる穴は自分の色で光ります。種にさわってはじめよう!",
    # flags
    "flags_heading": "問題",
    "flag_by": "プレイヤー{n}:{text}",
    "flags_fixed_summary": "なおした問題({n})",
    "notices_heading": "盤からのお知らせ({n})",
    "notices_help": (
        "盤のコンピューターが残した知らせです(新しい順、英語のまま)。"
        "警告はたたまずに出しておきます。ログにも残っています。"
    ),
    "notice_warning": "警告",
    "notice_acknowledged": "確認ずみ",
    "notice_repeats": "{n}回",
    "notices_earlier": "それより前のお知らせ({n})",
    "notices_logged": "それより古いお知らせ{n}件はログにだけあります。",
    "new_game_button": "あたらしいゲーム",
    "new_game_confirm": "もう一度おすと、あたらしいゲームになります",
    "sim_wait_over": "ゲームはおわりました。あたらしいゲームをはじめると、またまちがえられます。",
    "sim_wait_opening": "さいしょは二人いっしょにうちます。まちがいはそのあとでできます。",
    "sim_wait_busy": "手がおわるまでまってください。",
    "record_numbering": (
        "このページでは穴を1から数えます。記録のファイルでは0から数えます"
        "(ここの穴1は、ファイルでは0です)。"
    ),
    "error_status": "盤にことわられました({status})。",
    "error_field_command": "いまはできません。",
    "flags_none": "問題はありません。よくできました!",
    "flag_fixed": "解決",
    "flag_active": "直してください",
    "flag_wrong_start": "{at}の種は今は取れません。元に戻してください。",
    "flag_not_all_lifted": "{at}に種が残っています。全部取ってください。",
    "flag_wrong_pit": "種が{at}に入りました。入れるのは{expected}です。取り戻してください。",
    "flag_extra_seed": "{at}に種が2個以上入りました。余分な種を取り戻して、1個ずつ入れてください。",
    "flag_opponent_store": "種が{at}に入りました。相手のゴールには入れません。取り戻してください。",
    "flag_seed_lost": (
        "種が1個なくなりました。盤から落ちたかもしれません。見つけて{expected}に入れてください。"
    ),
    "flag_seed_lost_anywhere": (
        "種が1個なくなりました。盤から落ちたかもしれません。見つけて元に戻してください。"
    ),
    "flag_foreign_seed": "ゲームに使っていない種が{at}に入りました。取り出してください。",
    "flag_board_mismatch": "{at}の種がゲームと合いません。その場所を確かめてください。",
    "flag_sensor_fault": "{at}の下のはかりが動いていません({detail})。",
    "flag_link_fault": "盤のはかりが読めません({detail})。ケーブルを確かめてください。",
    "flag_write_failed": "ファイルを保存できません({detail})。メモリーカードがいっぱいではありませんか。",
    "flag_unknown": "{at}で問題「{kind}」が起きました。",
    # history, record, game
    "history_heading": "これまでの手",
    "history_none": "まだ手はありません。",
    "history_item": "プレイヤー{p}が穴{n}を選びました",
    "record_download": "ゲームの記録をダウンロード(JSON)",
    "game_heading": "ゲーム",
    "variant_label": "ルール",
    "variant_congkak": "チョンカ",
    "variant_kalah": "カラハ",
    "variant_oware": "アワレ",
    "options_label": "オプション",
    "mode_label": "モード",
    "mode_play": "対局",
    "mode_teach": "レッスン",
    "mode_demo": "デモ",
    "value_yes": "はい",
    "value_no": "いいえ",
    "value_none": "なし",
    "opt_pits": "1列の穴の数",
    "opt_seeds": "はじめに1つの穴に入れる種",
    "opt_sow_own_store": "自分のゴールにも種を入れる",
    "opt_laps": "周回",
    "opt_extra_turn": "最後の種が自分のゴールに入るともう1回",
    "opt_capture": "種の取り方",
    "opt_capture_requires_opposite": "向かいの穴に種があるときだけ取れる",
    "opt_capture_counts": "取れる種の数",
    "opt_grand_slam": "グランドスラム",
    "opt_skip_origin": "長い周回では最初の穴をとばす",
    "opt_must_feed": "種のない相手に種を渡す",
    "opt_no_move": "種がないとき",
    "opt_end": "ゲームの終わり方",
    "opt_end_sweep": "最後に残った種の行き先",
    "opt_cycle": "同じ形のくり返し",
    "opt_simultaneous_opening": "最初の手を二人同時に打つ",
    "opt_opening_next": "同時スタートの後に先に打つ人",
    "opt_handicap_rounds": "ハンデ付きのラウンド",
    "opt_handicap_partial": "満たせない穴",
    "opt_move_time_limit_s": "手を始めるまでの秒数",
    "opt_move_time_consequence": "時間内に手を始めなかったとき",
    "optval_single": "1周",
    "optval_relay": "リレー:種の入った穴から続けて配る",
    "optval_opposite": "向かいの穴",
    "optval_counts": "2個か3個",
    "optval_none": "なし",
    "optval_no_capture": "何も取らない",
    "optval_forbidden": "禁止",
    "optval_allowed": "許可",
    "optval_pass": "パス",
    "optval_end": "ゲーム終了",
    "optval_all_pits_empty": "全部の穴が空になったとき",
    "optval_side_empty": "片方の列が空になったとき",
    "optval_majority": "半分より多く取ったとき",
    "optval_owner": "その列の持ち主",
    "optval_emptier": "列が空になったプレイヤー",
    "optval_split_own": "それぞれ自分の列を取る",
    "optval_slower": "遅かったプレイヤー",
    "optval_faster": "速かったプレイヤー",
    "optval_keep": "そのまま",
    "optval_burn": "閉じる(種はゴールへ)",
    # the simulated board
    "sim_heading": "シミュレーションの盤で遊ぶ",
    "sim_help": (
        "番のプレイヤーの光っている穴をクリックすると、その手を打ちます。"
        "ボタンを押すとわざと間違えて、盤がどう知らせるかを見られます。"
    ),
    "sim_mistakes": "わざと間違える",
    "sim_play_pit": "{place}を打つ",
    "mistake_wrong_start": "取れない穴から取る",
    "mistake_not_all_lifted": "種を取り残す",
    "mistake_wrong_pit": "違う穴に入れる",
    "mistake_extra_seed": "2個いっしょに入れる",
    "mistake_opponent_store": "相手のゴールに入れる",
    "mistake_seed_lost": "種を盤の外に落とす",
    "mistake_foreign_seed": "外から種を足す",
    "error_refused": "盤に断られました:{error}",
    "error_network": "盤に届きませんでした。",
    # sensors
    "sensors_heading": "センサー",
    "sensors_help": "穴とゴールの下にある重さのセンサーが種を量ります。",
    "sensors_board": "盤:{name}、セル{cells}個",
    "sensors_idle": "使っていないセル:{cells}",
    "col_cell": "セル",
    "col_place": "場所",
    "col_raw": "生の値",
    "col_grams": "重さ(g)",
    "col_noise": "ノイズ(g rms)",
    "col_rate": "毎秒のサンプル数",
    "col_fault": "最後の故障",
    "fault_none": "なし",
    "leds_power": "LED:{a} A、明るさ {b}%",
    # publishing to the hall (sensors page) and the hall page
    "mqtt_line": "ホールのブローカー {url}(名前「{id}」):{state}。送れずに捨てたメッセージ:{dropped}",
    "mqtt_connected": "接続中",
    "mqtt_away": "未接続",
    "behind_dropped": "はかりの読み取りの取りこぼし:直近1分間に{minute}回、起動から{total}回。盤のコンピューターがはかりに追いついていないため、種を見落とすおそれがあります。",
    "behind_dropped_before": "起動からのはかりの読み取りの取りこぼし:{total}回(直近1分間はなし)。",
    "behind_skipped": "シミュレーションの盤が直近1分間に{minute}秒、起動から{total}秒を飛ばしました。コンピューターが追いついていません。",
    "behind_skipped_before": "シミュレーションの盤が起動から{total}秒を飛ばしました(直近1分間はなし)。",
    "hall_nav": "ホール",
    "hall_title": "ホール",
    "hall_board_title": "ホールの盤",
    "hall_heading": "ホールのすべての盤",
    "hall_help": "{url} に送ってきた盤です。盤をクリックすると詳しく見られます。",
    "hall_empty": "まだどの盤からも届いていません。",
    "hall_no_status": "この盤の状態はまだ届いていません。",
    "hall_no_broker": "ホールがブローカーにつながりません({error})。すべての盤をオフラインとして表示しています。",
    "hall_online": "オンライン",
    "hall_offline": "オフライン",
    "hall_unknown": "不明",
    "hall_facts": "{moves}手 · {mode} · ループ {lag} ms · 捨てた数 {dropped} · 失われた数 {lost}",
    "hall_back": "← ホールに戻る",
    "hall_events_heading": "最近のできごと",
    "hall_health_heading": "状態",
    "hall_event_move": "{ply}手目:プレイヤー{n}、{pit}番の穴",
    "hall_event_undo": "{moves}手目まで戻しました",
    "hall_event_record": "{moves}手で対局終了",
    "hall_variant": "ルール",
    "hall_board_name": "盤のファイル",
    "hall_state": "状態",
    "hall_lag": "ループの遅れ(p99)",
    "hall_dropped": "盤が捨てたメッセージ",
    "hall_lost": "途中で失われたできごと",
    "hall_received": "受け取ったできごと",
    "hall_behind": "はかりの読み取りの取りこぼし",
    "hall_behind_figures": "{total}回(直近1分間に{minute}回)",
    "hall_warnings_card": "盤からの未確認の警告:{n}件、最新",
    "hall_warnings_heading": "盤からの警告({n})",
    "hall_warnings_help": (
        "盤のコンピューターが残した知らせのうち、対応が必要なもの・知っておくべきものです"
        "(起動してから、新しい順、英語のまま)。盤のログと盤のページにもあります。"
    ),
    "hall_warnings_none": "ありません。",
    "hall_warnings_unknown": "この盤は警告を送りません(古いsowboard)。",
    "hall_warnings_logged": "それより古い警告{n}件は盤のログにだけあります。",
    # admin
    "admin_heading": "管理",
    "admin_help": "ここを使うには管理用のPINが必要です。",
    "admin_no_pin": "この盤には管理用のPINが設定されていないので、ここは使えません。",
    "open_without_pin": "このページはネットワークに公開されていますが、管理用のPIN"
    "（設定の web.admin_pin）が設定されていません。",
    "pin_label": "PIN",
    "login": "ログイン",
    "logout": "ログアウト",
    "logged_in": "ログインしています。",
    "logged_out": "ログインしていません。",
    "new_game_heading": "新しいゲーム",
    "new_game_variant": "ルール",
    "new_game_options_help": "ルールのふつうの設定が入っています。変えたいところだけ変えてください。",
    "error_whole_number": "整数を入れてください",
    "error_whole_numbers": "整数をカンマで区切って入れてください",
    "new_game_start": "新しいゲームを始める",
    "new_game_opponent": "コンピューターの担当",
    "opponent_none": "なし(二人で対戦)",
    "opponent_player0": "プレイヤー1(先手)",
    "opponent_player1": "プレイヤー2",
    "new_game_level": "コンピューターの強さ(1:小さな子どもでも勝てる、5:いちばん強い)",
    "new_game_match": "ハンディ戦(各ラウンドは前のラウンドで取った種で始めます)",
    "undo_heading": "取り消し",
    "undo": "最後の手を取り消す",
    "undo_nothing": "取り消せる手はまだありません。",
    "mode_set": "モードを変える",
    "calibrate_heading": "はかりの調整",
    "calibrate_stage": "段階",
    "stage_empty": "1. 盤が空になっている",
    "stage_layout": "2. どのセルがどの場所の下にあるか調べる",
    "stage_reference": "3. 基準のおもりを置いた",
    "calibrate_grams": "基準のおもり(g)",
    "calibrate_go": "調整する",
    "recording_heading": "記録",
    "recording_help": "はかりの生の読み取り値の最後の数分を、手順とフラグと一緒に不具合報告用に保存します(フラグのたびに数秒後にも保存されます)。",
    "recording_save": "記録を保存する",
    "recording_saved": "データディレクトリの recordings フォルダに {file} として保存しました。",
    "notices_ack_heading": "警告",
    "notices_ack_help": "盤の警告を確認ずみにします。盤のページではたたまれ、ホールでは数えなくなります"
    "(また同じ警告が出るまで)。",
    "notices_ack": "警告を確認ずみにする",
    "notices_acked": "{n}件の警告を確認ずみにしました。",
    "done": "完了しました。",
}

STRINGS: dict[str, dict[str, str]] = {"en": EN, "ja": JA}

_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def placeholders(template: str) -> set[str]:
    """The `{name}` placeholders of a template."""
    return set(_PLACEHOLDER.findall(template))


def t(lang: str, key: str, **params: object) -> str:
    """The string `key` in `lang` with its placeholders filled (unknown ones are left as is)."""
    table = STRINGS.get(lang, STRINGS[DEFAULT_LANGUAGE])
    template = table.get(key, STRINGS[DEFAULT_LANGUAGE].get(key, key))

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        return str(params[name]) if name in params else match.group(0)

    return _PLACEHOLDER.sub(fill, template)


def normalize(value: str | None) -> str | None:
    """`ja`, `ja-JP`, `JA` -> `ja`; None for anything that is not a page language."""
    if not value:
        return None
    base = value.strip().lower().replace("_", "-").split("-")[0]
    return base if base in LANGUAGES else None


def pick_language(
    switch: str | None,
    cookie: str | None,
    accepted: Iterable[tuple[str, float]],
) -> str:
    """The page language: the `?lang=` switch, then the cookie, then Accept-Language (best
    quality first, as Werkzeug's `request.accept_languages` lists them), then English."""
    for explicit in (switch, cookie):
        lang = normalize(explicit)
        if lang:
            return lang
    for value, quality in sorted(accepted, key=lambda item: -item[1]):
        lang = normalize(value)
        if lang and quality > 0:
            return lang
    return DEFAULT_LANGUAGE


def table(lang: str) -> Mapping[str, str]:
    """All strings of one language, for the page's JavaScript."""
    return STRINGS.get(lang, STRINGS[DEFAULT_LANGUAGE])
