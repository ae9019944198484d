/* shanghai-sim serve: the page of one game against the bots. It draws what /api/state says
   (the person's view of shanghai_sim.Game) and posts the person's choices; the server's
   HumanGame parses and checks them, as at the terminal. */
"use strict";
var S = null, selected = null, timer = null, pending = false, delay = 15, drawn = 0;

// The game's token (issued with this page): every request that changes anything carries it,
// with the game's moves the page was drawn at (a stale page's action is refused, 409).
var TOKEN = JSON.parse(document.getElementById("game-data").textContent).token;

function api(method, path, body) {
  var headers = {"Content-Type": "application/json"};
  if (method === "POST") headers["X-Shanghai-Token"] = TOKEN;
  return fetch(path, {method: method, headers: headers,
                      body: body === undefined ? undefined : JSON.stringify(body)})
    .then(function (r) { return r.json(); });
}

function setAnswer(lines, isError) {
  var a = document.getElementById("answer");
  a.textContent = "";
  a.className = isError ? "err" : "";
  (lines || []).forEach(function (l) { a.appendChild(el("div", "", l)); });
}

function act(body) {
  if (pending) return;
  pending = true;
  setAnswer([]);
  body.moves = S ? S.moves : -1;
  api("POST", "/api/act", body).then(function (r) {
    pending = false;
    if (r.stale) selected = null;      // chosen on a page the game has moved past: redraw
    if (r.error) setAnswer([r.error], true);
    else if (!r.applied) setAnswer(r.answer, true);
    else { selected = null; }
    if (r.answer && r.applied) setAnswer(r.answer, false);
    refresh();
  }).catch(function () { pending = false; setAnswer(["the server does not answer"], true); });
}

function choose(n) { act({choice: n}); }

function forCard(c) {
  return S.choices.filter(function (a) { return a.card === c && ["discard", "layoff", "swap"].indexOf(a.kind) >= 0; });
}

function onCard(c) {
  if (!S || !S.choices.length) return;
  if (selected === c) {               // a second click on the picked card discards it
    var d = S.choices.filter(function (a) { return a.kind === "discard" && a.card === c; });
    if (d.length === 1) { choose(d[0].n); return; }
    setAnswer([c + " cannot be discarded now"], true);
    return;
  }
  selected = c;
  draw();
}

function onMeld(m) {
  var opts = forCard(selected).filter(function (a) { return a.meld === m && a.kind !== "discard"; });
  if (opts.length === 1) choose(opts[0].n);
  else if (opts.length > 1) setAnswer(["several ways to play " + selected + " on meld " + m + ": choose one of the lit buttons"], true);
}

function drawActions() {
  var box = document.getElementById("actions");
  box.textContent = "";
  var hinted = S.hint ? S.hint.choice : null, mine = selected ? forCard(selected) : [];
  var labelled = false;
  S.choices.forEach(function (a) {
    if (a.kind === "discard" && !labelled) { box.appendChild(el("span", "muted", "discard:")); labelled = true; }
    var b = el("button", "", a.n + ") " + (a.kind === "discard" ? a.card : a.text));
    b.title = a.text;
    b.dataset.n = a.n;
    b.dataset.kind = a.kind;
    if (a.n === hinted) b.className += " hinted";
    if (mine.indexOf(a) >= 0) b.className += " forcard";
    b.addEventListener("click", function () { choose(a.n); });
    box.appendChild(b);
  });
  var ht = document.getElementById("hint-text");
  ht.textContent = S.hint ? S.hint.text : "";
}

function drawLog() {
  var log = document.getElementById("log");
  log.textContent = "";
  S.lines.slice(-80).forEach(function (l) { log.appendChild(el("div", "", l)); });
  log.scrollTop = log.scrollHeight;
}

/* The hand's end is a pause: who went out (or why the hand stopped), each seat's cards left,
   points and total, then "Next hand"; the next deal stays hidden until the person goes on.
   The hands this tab has gone on from are kept per game (a reload keeps the pause). */
var ACK_KEY = "shanghai-hands-seen-" + TOKEN, acked = null;

function handsSeen(n) {
  acked = n;
  try { sessionStorage.setItem(ACK_KEY, String(n)); } catch (e) { /* private mode: this page only */ }
}

function handResult(r) {
  var box = el("div", "");
  box.id = "hand-result";
  var who;
  if (r.winner !== null) {
    who = (r.winner === S.seat ? "You" : seatLabel(S.names, r.winner, S.seat)) + " went out" +
      (r.how === "discard" ? " by discarding" : " melding the last card") + (r.blind ? ", blind" : "") + ".";
  } else {
    who = "Nobody went out: " + (r.reason === "stock" ? "the stock ran out" : "the hand reached the turn cap") +
      ". Everybody scores the cards they hold.";
  }
  box.appendChild(el("div", "who", who));
  var t = el("table", "nums");
  var hr = el("tr");
  ["seat", "cards left", "points", "total"].forEach(function (h) { hr.appendChild(el("th", "", h)); });
  t.appendChild(hr);
  for (var q = 0; q < S.players; q++) {
    var tr = el("tr", q === S.seat ? "me" : "");
    tr.dataset.seat = q;
    tr.appendChild(el("td", "", seatLabel(S.names, q, S.seat)));
    var left = el("td", "left");
    if (r.winner === q) left.appendChild(el("span", "tag out", "went out"));
    r.left[q].forEach(function (c) { left.appendChild(cardEl(c)); });
    tr.appendChild(left);
    tr.appendChild(el("td", "pts", r.scores[q]));
    tr.appendChild(el("td", "tot", r.totals[q]));
    t.appendChild(tr);
  }
  box.appendChild(t);
  return box;
}

function drawPause(r) {
  var p = document.getElementById("handend");
  if (!p) {
    p = el("div", "");
    p.id = "handend";
    document.getElementById("layout").before(p);
  }
  p.hidden = !r;
  p.textContent = "";
  if (!r) return;
  p.appendChild(el("h2", "", "Hand " + r.hand + " (" + r.contract + ") is over"));
  p.appendChild(handResult(r));
  var next = r.hand + 1 === S.table.hand ? "Next hand: hand " + S.table.hand + " (" + S.table.contract + ")" : "Next hand";
  var b = el("button", "", next);
  b.id = "next-hand";
  b.addEventListener("click", function () { handsSeen(acked + 1); draw(); });
  p.appendChild(b);
  var q = el("button", "", "Quit");
  q.id = "pause-quit";
  q.title = "stop the game (it has no result)";
  q.addEventListener("click", function () {
    if (confirm("Stop the game? It will have no result.")) { handsSeen(acked + 1); act({line: "quit"}); }
  });
  p.appendChild(q);
  p.appendChild(el("div", "muted", "The cards each seat was left with count against it (points); " +
                   "the lowest total after the last hand wins."));
  b.focus();
}

function draw() {
  var hands = S.table.scores || [];
  if (acked === null) {
    var saved = null;
    try { saved = sessionStorage.getItem(ACK_KEY); } catch (e) { saved = null; }
    handsSeen(saved !== null && Number(saved) <= hands.length ? Number(saved) : hands.length);
  }
  var pause = !(S.over || S.stopped) && hands.length > acked ? hands[acked] : null;
  drawPause(pause);
  document.getElementById("layout").hidden = !!pause;
  if (pause) {
    document.body.dataset.state = "hand_end";
    document.body.dataset.drawn = ++drawn;
    return;
  }
  var targets = [];
  if (selected) forCard(selected).forEach(function (a) { if (a.meld !== null && a.kind !== "discard") targets.push(a.meld); });
  if (selected && S.table.seats[S.seat].cards.indexOf(selected) < 0) selected = null;
  drawTable(S.table, {onCard: S.choices.length ? onCard : null, onMeld: onMeld, meldTargets: targets,
                      selected: selected});
  S.table.seats.forEach(function (s, q) {
    if (s.known && s.known.length) {
      document.querySelector("#seat-" + q + " .head").appendChild(el("span", "muted", "took " + s.known.join(" ")));
    }
  });
  document.getElementById("situation").textContent = S.over || S.stopped ? "" : S.situation;
  drawActions();
  drawLog();
  var res = document.getElementById("result");
  var ended = S.over || S.stopped;
  res.hidden = !ended;
  document.getElementById("hint").disabled = document.getElementById("quit").disabled =
    document.getElementById("cmd").disabled = !!ended;
  if (ended) {
    res.textContent = "";
    res.appendChild(el("h3", "", S.over ? "Game over" : "Game stopped"));
    res.appendChild(el("div", "", S.result));
    if (S.over && hands.length) {
      res.appendChild(el("div", "muted", "Hand " + hands[hands.length - 1].hand + ", the last:"));
      res.appendChild(handResult(hands[hands.length - 1]));
    }
    var links = el("div", "");
    var a1 = el("a", "", "the log (JSON lines)");
    a1.href = "/log.jsonl";
    var a2 = el("a", "", "watch it again (replay page)");
    a2.href = "/replay.html";
    a2.target = "_blank";
    links.appendChild(a1);
    links.appendChild(document.createTextNode(" \u00b7 "));
    links.appendChild(a2);
    res.appendChild(links);
    if (S.log) res.appendChild(el("div", "muted", "saved to " + S.log + " (shanghai-sim replay --log " + S.log + ")"));
  }
  document.body.dataset.state = S.over ? "over" : S.stopped ? "stopped" : "turn";
  document.body.dataset.drawn = ++drawn;      // one more drawing of a settled state (tests wait on it)
}

function banner(text) {
  var b = document.getElementById("banner");
  b.hidden = !text;
  b.textContent = text || "";
}

function secs(x) { return x >= 60 ? Math.floor(x / 60) + "m" + String(Math.floor(x % 60)).padStart(2, "0") + "s" : Math.floor(x) + "s"; }

function refresh() {
  if (timer) { clearTimeout(timer); timer = null; }
  api("GET", "/api/state").then(function (st) {
    if (st.error) { banner(st.error); document.body.dataset.state = "error"; return; }
    if (st.busy) {
      document.body.dataset.state = "busy";
      banner(st.compiling !== null
        ? "Compiling the game's kernels (first use; cached afterwards): " + secs(st.compiling) + " so far, " + secs(st.elapsed) + " in all"
        : st.busy.charAt(0).toUpperCase() + st.busy.slice(1) + " \u2026 " + secs(st.elapsed));
      timer = setTimeout(refresh, delay);      // soon after a quick job, every 0.3 s in a long one
      delay = Math.min(300, delay * 1.5);
      return;
    }
    delay = 15;
    banner(st.log_error);
    S = st;
    document.getElementById("sub").textContent = "rules " + st.rules + " \u00b7 " + st.players +
      " players \u00b7 seed " + st.seed + " \u00b7 you are seat " + st.seat;
    draw();
  }).catch(function () {
    banner("the server does not answer (is shanghai-sim serve still running?)");
    document.body.dataset.state = "error";
  });
}

document.getElementById("hint").addEventListener("click", function () {
  api("POST", "/api/hint", {moves: S ? S.moves : -1}).then(function (r) {
    if (r.error) setAnswer([r.error], true);
    refresh();
  });
});
document.getElementById("quit").addEventListener("click", function () {
  if (confirm("Stop the game? It will have no result.")) act({line: "quit"});
});
document.getElementById("cmd").addEventListener("keydown", function (ev) {
  if (ev.key !== "Enter") return;
  var line = ev.target.value;
  ev.target.value = "";
  act({line: line});
});
refresh();
