/* shanghai-sim replay page: the game's events (replay --json, docs/replay.md), stepped through.
   Every state is rebuilt from the events' names and fields at load; stepping only draws. */
"use strict";
var DATA = JSON.parse(document.getElementById("game-data").textContent);
var EV = DATA.events, LINES = DATA.lines, META = DATA.meta, P = META.players, HIDDEN = DATA.hidden;
var PROBLEMS = [];      // events that do not fit the cards held (a damaged log): shown, never hidden

function removeCard(cards, c, i) {
  var k = cards.indexOf(c);
  if (k < 0) k = cards.indexOf("??");      // a card a seat view did not show (docs/replay.md)
  if (k < 0) { PROBLEMS.push("event " + i + ": " + c + " is not in the hand"); return cards; }
  var out = cards.slice();
  out.splice(k, 1);
  return out;
}

function fill(v) { var a = []; for (var q = 0; q < P; q++) a.push(v); return a; }

function buildStates() {
  var s = {hand: 0, contract: "", dealer: null, turn: null, hands: fill([]), fresh: fill([]),
           melds: [], pile: [], stock: null, down: fill(false), buys: fill(0), out: null,
           scores: [], totals: fill(0), over: null, stopped: null};
  var states = [];
  for (var i = 0; i < EV.length; i++) {
    var e = EV[i], n = Object.assign({}, s), q = e.seat;
    n.fresh = s.fresh;
    var hands = function () { if (n.hands === s.hands) n.hands = s.hands.slice(); return n.hands; };
    var setFresh = function (seat, cards) { n.fresh = fill([]); n.fresh[seat] = cards; };
    switch (e.event) {
      case "hand":
        n.hand = e.hand;
        n.contract = e.contract || (META.contracts ? META.contracts[e.hand - 1] : "");
        n.dealer = e.dealer; n.turn = e.first;
        n.hands = fill([]); n.fresh = fill([]); n.melds = []; n.pile = [];
        n.stock = META.shoe === null || META.shoe === undefined ? null : META.shoe;
        n.down = fill(false); n.buys = fill(0); n.out = null;
        break;
      case "deal":
        hands()[q] = e.cards.slice();
        if (n.stock !== null) n.stock -= e.cards.length;
        break;
      case "upcard":
        n.pile = [e.card];
        if (n.stock !== null) n.stock -= 1;
        break;
      case "draw":
        hands()[q] = s.hands[q].concat([e.card]);
        setFresh(q, [e.card]);
        if (e.source === "upcard") n.pile = s.pile.slice(0, -1);
        else if (n.stock !== null) n.stock -= 1;
        n.turn = q;
        break;
      case "buy":
        hands()[q] = s.hands[q].concat([e.card], e.penalty);
        setFresh(q, [e.card].concat(e.penalty));
        n.pile = s.pile.slice(0, -1);
        if (n.stock !== null) n.stock -= e.penalty.length;
        n.buys = s.buys.slice(); n.buys[q] += 1;
        break;
      case "go_down":
        var h = s.hands[q];
        e.melds.forEach(function (m) { m.cards.forEach(function (c) { h = removeCard(h, c, i); }); });
        hands()[q] = h;
        n.melds = s.melds.concat(e.melds);
        n.down = s.down.slice(); n.down[q] = true;
        n.turn = q;
        break;
      case "layoff":
      case "swap":
        var h2 = removeCard(s.hands[q], e.card, i);
        if (e.event === "swap") { h2 = h2.concat(["JK"]); setFresh(q, ["JK"]); }
        hands()[q] = h2;
        n.melds = s.melds.map(function (m) {
          if (m.meld !== e.meld) return m;
          if (e.meld_now) return e.meld_now;
          PROBLEMS.push("event " + i + ": meld " + e.meld + " without its new cards");
          return m;
        });
        n.turn = q;
        break;
      case "discard":
        hands()[q] = removeCard(s.hands[q], e.card, i);
        n.pile = s.pile.concat([e.card]);
        n.fresh = fill([]);
        n.turn = q;
        break;
      case "reshuffle":
        if (n.stock !== null) n.stock += e.cards;
        n.pile = e.upcard_kept ? [e.upcard_kept] : [];
        break;
      case "out":
        n.out = q;
        break;
      case "hand_end":
        n.scores = s.scores.concat([{hand: e.hand, scores: e.scores}]);
        n.totals = e.totals;
        n.turn = null;
        break;
      case "game_end":
        n.over = e; n.totals = e.totals; n.turn = null;
        break;
      case "stopped":
        n.stopped = e; n.turn = null;
        break;
      case "pass":
        n.turn = q;
        break;
      default:        // game (the header of a saved log), search: nothing changes on the table
        break;
    }
    states.push(n);
    s = n;
  }
  return states;
}

var STATES = buildStates();
var TURN_STOPS = [], HAND_STOPS = [], HAND_OF = {};
EV.forEach(function (e, i) {
  if (["discard", "out", "hand_end", "game_end", "stopped"].indexOf(e.event) >= 0) TURN_STOPS.push(i);
  if (e.event === "upcard") { HAND_STOPS.push(i); HAND_OF[i] = e.hand; }
});
var cur = 0, view = "all", playing = null, hashTimer = null;

function viewOf(i) {
  var s = STATES[i], seen = view === "all" ? null : Number(view);
  var seats = [];
  for (var q = 0; q < P; q++) {
    var known = s.hands[q].indexOf("??") < 0;       // a seat view's other seats: backs
    seats.push({cards: (seen === null || seen === q) && known ? s.hands[q] : null, count: s.hands[q].length,
                down: s.down[q], out: s.out === q, fresh: s.fresh[q],
                buys: META.buys ? META.buys[s.hand - 1] - s.buys[q] : null, buysUsed: s.buys[q]});
  }
  return {players: P, names: META.seats, human: META.human, hand: s.hand, contract: s.contract,
          turn: s.turn, upcard: s.pile.length ? s.pile[s.pile.length - 1] : null, pile: s.pile.length,
          stock: s.stock, melds: s.melds, seats: seats, scores: s.scores, totals: s.totals};
}

/* Event k's line as the view shows it: in one seat's view, the others' hidden cards as counts. */
function lineOf(k) {
  if (view === "all" || !HIDDEN) return LINES[k];
  var h = HIDDEN[Number(view)][k];
  return h === undefined ? LINES[k] : h;
}

function searchOf(i) {
  if (EV[i].event === "search") return EV[i];
  if (i > 0 && EV[i - 1].event === "search") return EV[i - 1];
  return null;
}

function drawSearch(i) {
  var box = document.getElementById("search");
  var e = searchOf(i);
  box.textContent = "";
  box.appendChild(el("h3", "", "Search"));
  if (!e) {
    box.appendChild(el("div", "muted", "no search at this event (the rollout bot logs each decision it searches)"));
    return;
  }
  box.dataset.seat = e.seat;
  if (view !== "all" && Number(view) !== e.seat) {
    box.appendChild(el("div", "muted", "seat " + e.seat + " searched its " + e.decision + " decision (" +
                       e.candidates.length + " candidates, " + e.rollouts + " samples for smart's choice): they name cards of its hand, " +
                       "hidden in seat " + view + "'s view"));
    return;
  }
  var fig = e.candidates.every(function (c) { return c.samples !== undefined && c.diff !== undefined && c.se !== undefined; }) &&
            e.z !== undefined;
  box.appendChild(el("div", "", "seat " + e.seat + " (" + (META.seats ? META.seats[e.seat] : "") + ") searched its " +
                     e.decision + " decision: " + e.rollouts + " samples for smart's choice"));
  var why = fig ? searchReasons(e) : null;
  var t = el("table", "nums");
  var hr = el("tr");
  ["candidate", "mean points", "samples"].concat(fig ? ["diff \u00b1 se"] : []).forEach(function (h) { hr.appendChild(el("th", "", h)); });
  t.appendChild(hr);
  e.candidates.forEach(function (c, k) {
    var tr = el("tr", k === e.chosen ? "chosen" : "");
    var td = el("td", "", c.action + (k === 0 ? " (smart's)" : "") + (k === e.chosen ? " \u2190 chosen" : ""));
    if (why) td.appendChild(el("div", "why", why[k]));
    tr.appendChild(td);
    tr.appendChild(el("td", "", c.mean.toFixed(2)));
    tr.appendChild(el("td", "", fig ? c.samples : e.rollouts));
    if (fig) tr.appendChild(el("td", "", k === 0 ? "" : num(c.diff) + " \u00b1 " + num(c.se)));
    t.appendChild(tr);
  });
  box.appendChild(t);
  if (fig) {
    box.appendChild(el("div", "muted rule", "Lower is better. diff: a candidate's mean less smart's choice's, on the " +
      "same samples; se: its standard error. Another candidate replaces smart's choice only when diff < \u2212margin (" +
      num(-e.margin) + ") and diff + z\u00b7se < 0 (z = " + num(e.z) + "): a lower mean by chance is not enough" +
      (e.race ? ". The race samples up to " + e.race + " times; a challenger whose diff \u2212 z\u00b7se > \u2212tie (" +
                num(-e.tie) + ") drops out early: it cannot beat smart's choice by " + num(e.tie) + " points."
              : "; without a race only the lowest mean of the others is tried.") + " (docs/rollout.md)"));
  } else {
    box.appendChild(el("div", "muted", "mean outcome over the samples, lower is better (docs/rollout.md). This log " +
      "(schema 1) does not record each candidate's samples and standard error, so the rule that kept or " +
      "replaced smart's choice cannot be shown here."));
  }
}

function num(x) {
  if (!x) return "0";
  var s = (Math.round(x * 100) / 100).toFixed(2).replace(/\.?0+$/, "");
  return s.charAt(0) === "-" ? "\u2212" + s.slice(1) : s;
}

/* Why each candidate was kept, chosen, dropped or passed over, by the rule of
   kernels/search/rollout.py (log.search_reasons says the same in the text log). */
function searchReasons(e) {
  var cs = e.candidates, z = e.z, m = e.margin, tie = e.tie, ch = e.chosen, best = 1;
  for (var j = 2; j < cs.length; j++) if (cs[j].mean < cs[best].mean) best = j;
  return cs.map(function (c, i) {
    var d = c.diff, hi = d + z * c.se, lo = d - z * c.se;
    if (i === 0) return ch === 0 ? "smart's choice: kept" : "smart's choice: replaced";
    if (i === ch) return "chosen: diff " + num(d) + " < \u2212margin (" + num(-m) + ") and diff + z\u00b7se = " + num(hi) + " < 0";
    if (e.race && tie !== null && tie !== undefined && lo > -tie)
      return "dropped after " + c.samples + " samples: diff \u2212 z\u00b7se = " + num(lo) + " > \u2212tie (" + num(-tie) +
             "): it cannot beat smart's choice by " + num(tie) + " points";
    if (!e.race && i !== best) return "not tried: without a race only the lowest mean of the others (" + cs[best].action + ") may replace smart's choice";
    if (d >= -m) return "not better: diff " + num(d) + " is not below \u2212margin (" + num(-m) + ")";
    if (hi >= 0) return "not clearly better: diff + z\u00b7se = " + num(hi) + " \u2265 0 after " + c.samples + " samples";
    return "better too, but " + cs[ch].action + " is better still";
  });
}

function drawLog(i) {
  var log = document.getElementById("log");
  log.textContent = "";
  var from = Math.max(0, i - 60);
  for (var k = from; k <= i; k++) {
    var line = el("div", k === i ? "cur" : "", lineOf(k));
    line.dataset.event = k;
    log.appendChild(line);
  }
  log.scrollTop = log.scrollHeight;
}

function drawResult(i) {
  var s = STATES[i], box = document.getElementById("result");
  box.textContent = "";
  if (s.over) {
    var w = s.over.winners.map(function (q) { return seatLabel(META.seats, q, META.human); }).join(", ");
    box.appendChild(el("div", "", "Game over: lowest total wins. Winner" + (s.over.winners.length > 1 ? "s (shared)" : "") + ": " + w));
  } else if (s.stopped) {
    box.appendChild(el("div", "", "The game was stopped in hand " + s.stopped.hand + " (" + s.stopped.reason + "): no result."));
  } else if (i === EV.length - 1) {
    box.appendChild(el("div", "", "The log ends here: the game was not finished."));
  }
  if (PROBLEMS.length) box.appendChild(el("div", "err", "This log does not add up: " + PROBLEMS.slice(0, 3).join("; ")));
}

function go(i) {
  cur = Math.max(0, Math.min(EV.length - 1, i));
  drawTable(viewOf(cur));
  drawSearch(cur);
  drawLog(cur);
  drawResult(cur);
  document.getElementById("now").textContent = lineOf(cur).trim();
  document.getElementById("pos").textContent = "event " + (cur + 1) + " / " + EV.length;
  var sel = document.getElementById("jump"), h = STATES[cur].hand;
  if (h && sel.value !== String(h)) sel.value = String(h);
  document.getElementById("back").disabled = document.getElementById("turn-back").disabled =
    document.getElementById("hand-back").disabled = document.getElementById("first").disabled = cur === 0;
  document.getElementById("next").disabled = document.getElementById("turn-next").disabled =
    document.getElementById("hand-next").disabled = document.getElementById("last").disabled = cur === EV.length - 1;
  document.body.dataset.event = cur;
  // the address names the event shown (a link to it), once the stepping pauses: browsers
  // throttle history updates made at every key repeat
  clearTimeout(hashTimer);
  hashTimer = setTimeout(function () {
    try { history.replaceState(null, "", "#event=" + (cur + 1)); } catch (err) { /* a sandboxed frame */ }
  }, 250);
}

function nextIn(stops, i) { for (var k = 0; k < stops.length; k++) if (stops[k] > i) return stops[k]; return EV.length - 1; }
function prevIn(stops, i) { for (var k = stops.length - 1; k >= 0; k--) if (stops[k] < i) return stops[k]; return 0; }

var STEP = {
  next: function () { go(cur + 1); }, back: function () { go(cur - 1); },
  "turn-next": function () { go(nextIn(TURN_STOPS, cur)); }, "turn-back": function () { go(prevIn(TURN_STOPS, cur)); },
  "hand-next": function () { go(nextIn(HAND_STOPS, cur)); }, "hand-back": function () { go(prevIn(HAND_STOPS, cur)); },
  first: function () { go(0); }, last: function () { go(EV.length - 1); }
};

function togglePlay() {
  var b = document.getElementById("play");
  if (playing) { clearInterval(playing); playing = null; b.textContent = "\u25b6 play"; return; }
  b.textContent = "\u23f8 pause";
  playing = setInterval(function () {
    if (cur >= EV.length - 1) { togglePlay(); return; }
    STEP["turn-next"]();
  }, 700);
}

function setup() {
  document.getElementById("title").textContent = META.title;
  document.getElementById("sub").textContent = META.subtitle;
  Object.keys(STEP).forEach(function (id) {
    document.getElementById(id).addEventListener("click", STEP[id]);
  });
  document.getElementById("play").addEventListener("click", togglePlay);
  var jump = document.getElementById("jump");
  HAND_STOPS.forEach(function (i) {
    var o = el("option", "", "hand " + HAND_OF[i] + (STATES[i].contract ? ": " + STATES[i].contract : ""));
    o.value = HAND_OF[i];
    jump.appendChild(o);
  });
  jump.addEventListener("change", function () {
    HAND_STOPS.forEach(function (i) { if (String(HAND_OF[i]) === jump.value) go(i); });
  });
  var vs = document.getElementById("view");
  for (var q = 0; q < P; q++) {
    var o = el("option", "", "seat " + q + "'s view" + (META.seats ? " (" + META.seats[q] + ")" : ""));
    o.value = q;
    vs.appendChild(o);
  }
  vs.addEventListener("change", function () { view = vs.value; go(cur); });
  document.addEventListener("keydown", function (ev) {
    if (ev.target && (ev.target.tagName === "SELECT" || ev.target.tagName === "INPUT")) return;
    var k = {ArrowRight: "next", ArrowLeft: "back", ArrowDown: "turn-next", ArrowUp: "turn-back",
             PageDown: "hand-next", PageUp: "hand-back", Home: "first", End: "last"}[ev.key];
    if (ev.key === "ArrowRight" && ev.shiftKey) k = "turn-next";
    if (ev.key === "ArrowLeft" && ev.shiftKey) k = "turn-back";
    if (k) { ev.preventDefault(); STEP[k](); }
    else if (ev.key === " ") { ev.preventDefault(); togglePlay(); }
  });
  window.addEventListener("hashchange", function () {     // a link to an event: #event=N
    var h = /event=(\d+)/.exec(location.hash);
    if (h && Number(h[1]) - 1 !== cur) go(Number(h[1]) - 1);
  });
  var m = /event=(\d+)/.exec(location.hash);
  go(m ? Number(m[1]) - 1 : (HAND_STOPS.length ? HAND_STOPS[0] : 0));
}
setup();
