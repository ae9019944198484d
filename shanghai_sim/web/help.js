/* The Help panel of the pages (serve, replay --html): the words on the page in plain words.
   Its entries are GLOSSARY (glossary.js, written from docs/glossary.md). A "Help" button in
   the header opens and closes it; Escape closes it. */
"use strict";
(function () {
  var header = document.querySelector("header");
  if (!header || typeof GLOSSARY === "undefined") return;
  var button = el("button", "", "Help: the words");
  button.id = "help-button";
  button.title = "what the words on this page mean";
  button.setAttribute("aria-expanded", "false");
  header.appendChild(button);
  var panel = el("div", "");
  panel.id = "help";
  panel.hidden = true;
  panel.setAttribute("role", "dialog");
  panel.setAttribute("aria-label", "the words on this page");
  var top = el("div", "top");
  top.appendChild(el("h2", "", "The words on this page"));
  var close = el("button", "", "Close");
  close.id = "help-close";
  top.appendChild(close);
  panel.appendChild(top);
  panel.appendChild(el("div", "muted", "From docs/glossary.md, the project's glossary; the rules in full: docs/rules.md."));
  var section = null, dl = null;
  GLOSSARY.forEach(function (g) {
    if (g.section !== section) {
      section = g.section;
      panel.appendChild(el("h3", "", section));
      dl = el("dl", "");
      panel.appendChild(dl);
    }
    var dt = el("dt", "", g.term);
    dt.id = "word-" + g.term.replace(/[^a-z0-9]+/gi, "-");
    dl.appendChild(dt);
    dl.appendChild(el("dd", "", g.text));
  });
  header.after(panel);
  function show(on) {
    panel.hidden = !on;
    button.setAttribute("aria-expanded", on ? "true" : "false");
    if (on) close.focus();
  }
  button.addEventListener("click", function () { show(panel.hidden); });
  close.addEventListener("click", function () { show(false); button.focus(); });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && !panel.hidden) { show(false); button.focus(); }
  });
})();
