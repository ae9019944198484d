/* shanghai-sim: cards, melds and seats drawn as HTML (shared by replay --html and serve).
   Cards are strings as in the event log (docs/replay.md): rank then suit, "7C", "TH", "JK". */
"use strict";
var SUIT_SIGN = {C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660"};
var SUIT_ORDER = {C: 0, D: 1, H: 2, S: 3};
var RANK_ORDER = "A23456789TJQK";

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}

function rankText(r) { return r === "T" ? "10" : r; }

/* A card as a small tile: rank over a suit sign, red suits red, a joker marked JK
   (with what it stands for on the table, when given). */
function cardEl(c, opts) {
  opts = opts || {};
  var e = el("span", "card" + (opts.big ? " big" : ""));
  if (opts.back) {
    e.className += " back";
    e.title = "a hidden card";
    return e;
  }
  e.dataset.card = c;
  if (c === "JK") {
    e.className += " joker";
    e.appendChild(el("span", "", "JK"));
    e.appendChild(el("span", "s", "\u2605"));
    if (opts.as) e.appendChild(el("span", "as", "=" + rankText(opts.as.slice(0, -1)) +
                                   (SUIT_SIGN[opts.as.slice(-1)] || opts.as.slice(-1))));
    e.title = opts.as ? "joker standing for " + opts.as : "joker";
    if (opts.as && !SUIT_SIGN[opts.as.slice(-1)]) {     // a set joker named by its rank only
      e.lastChild.textContent = "=" + rankText(opts.as);
    }
  } else {
    var r = c.slice(0, -1), s = c.slice(-1);
    if (s === "D" || s === "H") e.className += " red";
    e.appendChild(el("span", "", rankText(r)));
    e.appendChild(el("span", "s", SUIT_SIGN[s] || s));
    e.title = c;
  }
  if (opts.cls) e.className += " " + opts.cls;
  return e;
}

/* Hand order: by suit, then by rank (ace low), jokers last. */
function cardKey(c) {
  if (c === "JK") return 99;
  return SUIT_ORDER[c.slice(-1)] * 13 + RANK_ORDER.indexOf(c.slice(0, -1));
}
function sortCards(cards) { return cards.slice().sort(function (a, b) { return cardKey(a) - cardKey(b); }); }

function seatLabel(names, q, human) {
  var n = names && names[q] ? names[q] : "";
  if (human !== null && human !== undefined && q === human) n = "you";
  return "seat " + q + (n ? " (" + n + ")" : "");
}

/* A table meld (the log's meld object): its owner, what it is, its cards in order. */
function meldEl(m, names, human) {
  var row = el("div", "meld");
  row.dataset.meld = m.meld;
  row.dataset.owner = m.owner;
  var head = m.kind === "set" ? "set of " + rankText(m.rank) + "s" : "run of " + (SUIT_SIGN[m.suit] || m.suit);
  row.appendChild(el("span", "who", "[" + m.meld + "] " + head + ", " + seatLabel(names, m.owner, human)));
  var cs = el("span", "cards");
  for (var k = 0; k < m.cards.length; k++) {
    cs.appendChild(cardEl(m.cards[k], {as: m.jokers ? m.jokers[k] : null}));
  }
  row.appendChild(cs);
  return row;
}

/* The table of a view:
   {players, names, human, hand, contract, turn, upcard, pile, stock, melds,
    seats: [{cards | null, count, down, buys (left, or null), buysUsed, out, fresh: [cards]}],
    scores: [{hand, scores}], totals}
   into #table-area, #seats and #scores. opts.onCard(card, element) makes the human's cards
   clickable; opts.onMeld(meld) the melds. */
function drawTable(v, opts) {
  opts = opts || {};
  var area = document.getElementById("table-area");
  area.textContent = "";
  var felt = el("div", "felt");
  var title = v.hand ? "Hand " + v.hand + (v.contract ? ": " + v.contract : "") : "Before the first hand";
  felt.appendChild(el("h2", "", title));
  var centre = el("div", "centre");
  centre.id = "centre";
  var up = el("div", "pilebox");
  up.id = "upcard";
  up.dataset.card = v.upcard || "";
  up.appendChild(v.upcard ? cardEl(v.upcard, {big: true}) : el("span", "card big none"));
  up.appendChild(el("div", "label", v.upcard ? "upcard" : "no upcard"));
  up.appendChild(el("div", "label", "pile " + (v.pile === null || v.pile === undefined ? "?" : v.pile)));
  centre.appendChild(up);
  var st = el("div", "pilebox");
  st.id = "stock";
  st.dataset.count = v.stock === null || v.stock === undefined ? "" : v.stock;
  st.appendChild(v.stock ? cardEl(null, {back: true, big: true}) : el("span", "card big none"));
  st.appendChild(el("div", "label", "stock " + (v.stock === null || v.stock === undefined ? "?" : v.stock)));
  centre.appendChild(st);
  var melds = el("div", "");
  melds.id = "melds";
  if (!v.melds.length) melds.appendChild(el("div", "empty", "no melds on the table"));
  v.melds.forEach(function (m) {
    var row = meldEl(m, v.names, v.human);
    if (opts.onMeld && opts.meldTargets && opts.meldTargets.indexOf(m.meld) >= 0) {
      row.className += " target";
      row.addEventListener("click", function () { opts.onMeld(m.meld); });
    }
    melds.appendChild(row);
  });
  centre.appendChild(melds);
  felt.appendChild(centre);
  area.appendChild(felt);

  var seats = document.getElementById("seats");
  seats.textContent = "";
  for (var q = 0; q < v.players; q++) {
    var s = v.seats[q];
    var box = el("div", "seat" + (v.turn === q ? " turn" : ""));
    box.id = "seat-" + q;
    var head = el("div", "head");
    head.appendChild(el("span", "name", seatLabel(v.names, q, v.human)));
    head.appendChild(el("span", "muted", s.count + " card" + (s.count === 1 ? "" : "s")));
    if (s.down) head.appendChild(el("span", "tag down", "down"));
    if (s.out) head.appendChild(el("span", "tag out", "went out"));
    head.appendChild(el("span", "tag", s.buys === null || s.buys === undefined
      ? s.buysUsed + " bought" : s.buys + " buy" + (s.buys === 1 ? "" : "s") + " left"));
    if (v.totals) head.appendChild(el("span", "muted", "total " + v.totals[q]));
    box.appendChild(head);
    var hand = el("div", "cards");
    hand.id = "hand-" + q;
    if (s.cards) {
      hand.dataset.shown = "1";
      var fresh = (s.fresh || []).slice();
      sortCards(s.cards).forEach(function (c) {
        var k = fresh.indexOf(c), cls = "";
        if (k >= 0) { fresh.splice(k, 1); cls = "new"; }
        var ce = cardEl(c, {cls: cls});
        if (opts.onCard && q === v.human) {
          ce.className += " pick";
          if (opts.selected === c) ce.className += " sel";
          ce.addEventListener("click", function (ev) { opts.onCard(ev.currentTarget.dataset.card); });
        }
        hand.appendChild(ce);
      });
    } else {
      hand.dataset.shown = "0";
      for (var k2 = 0; k2 < s.count; k2++) hand.appendChild(cardEl(null, {back: true}));
    }
    box.appendChild(hand);
    seats.appendChild(box);
  }
  drawScores(v);
}

function drawScores(v) {
  var box = document.getElementById("scores");
  box.textContent = "";
  var t = el("table", "nums");
  var hr = el("tr");
  hr.appendChild(el("th", "", "hand"));
  for (var q = 0; q < v.players; q++) hr.appendChild(el("th", "", v.human === q ? "you" : "s" + q));
  t.appendChild(hr);
  v.scores.forEach(function (row) {
    var tr = el("tr");
    tr.appendChild(el("td", "", row.hand));
    row.scores.forEach(function (x) { tr.appendChild(el("td", "", x)); });
    t.appendChild(tr);
  });
  var tot = el("tr", "total");
  tot.id = "totals";
  tot.appendChild(el("td", "", "total"));
  for (var q2 = 0; q2 < v.players; q2++) {
    var td = el("td", "", v.totals ? v.totals[q2] : 0);
    td.dataset.seat = q2;
    tot.appendChild(td);
  }
  t.appendChild(tot);
  box.appendChild(t);
}
