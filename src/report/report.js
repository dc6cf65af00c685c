"use strict";
(function () {
  var el = function (id) { return document.getElementById(id); };
  var data = JSON.parse(el("calls").textContent);
  var S = data.s, C = data.c, n = C.length, t0 = data.t0;
  var canvas = el("canvas"), tip = el("tip"), detail = el("detail"), zoom = el("zoom");
  if (!canvas || n === 0) return;
  var MARKS = ["allow", "no opinion", "ask", "deny", "no pre record"];
  // [offset ms, mark, tool, target, domain, risk, rule, reason, outcome, refused by, error,
  //  trust before, trust after, strike, escalation, session]
  function rows(i) {
    var c = C[i], out = [];
    var add = function (k, v) { if (v !== "" && v !== null && v !== undefined) out.push([k, String(v)]); };
    add("call", (i + 1) + " of " + n);
    add("time", c[0] === null ? "" : new Date(t0 + c[0]).toISOString().replace("T", " ").replace("Z", " UTC"));
    add("session", S[c[15]]);
    add("tool", S[c[2]]);
    add("decision", MARKS[c[1]]);
    add("input", S[c[3]]);
    add("domain", S[c[4]]);
    add("risk", S[c[5]]);
    add("rule", S[c[6]]);
    add("reason", S[c[7]]);
    add("outcome", S[c[8]] + (S[c[9]] ? " by " + S[c[9]] : ""));
    add(c[8] !== undefined && S[c[8]] === "failure" ? "error" : "message", S[c[10]]);
    if (c[11] !== null) add("trust", c[11].toFixed(3) + " \u2192 " + c[12].toFixed(3));
    if (c[13]) add("strike", c[13]);
    if (c[14]) add("escalation", "asked or denied by a 3-strike escalation");
    return out;
  }
  function fill(box, i) {
    box.textContent = "";
    var dl = document.createElement("dl");
    rows(i).forEach(function (r) {
      var dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = r[0];
      dd.textContent = r[1];
      dl.appendChild(dt);
      dl.appendChild(dd);
    });
    box.appendChild(dl);
  }
  function at(e) {
    var r = canvas.getBoundingClientRect();
    var i = Math.floor((e.clientX - r.left) / r.width * n);
    return i >= 0 && i < n ? i : -1;
  }
  canvas.addEventListener("mousemove", function (e) {
    var i = at(e);
    if (i < 0) { tip.hidden = true; return; }
    fill(tip, i);
    tip.hidden = false;
    var x = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    var y = e.clientY + 14 + tip.offsetHeight > window.innerHeight ? e.clientY - tip.offsetHeight - 10 : e.clientY + 14;
    tip.style.left = Math.max(4, x) + "px";
    tip.style.top = Math.max(4, y) + "px";
  });
  canvas.addEventListener("mouseleave", function () { tip.hidden = true; });
  // The selected call: its details below the chart and a cursor over its column; the arrow
  // keys move it once the chart has focus.
  var cursor = el("cursor"), selected = -1;
  function select(i) {
    selected = Math.max(0, Math.min(n - 1, i));
    fill(detail, selected);
    cursor.hidden = false;
    cursor.style.left = (selected / n * 100) + "%";
    cursor.style.width = "max(2px, " + (100 / n) + "%)";
  }
  canvas.addEventListener("click", function (e) { var i = at(e); if (i >= 0) { select(i); canvas.focus(); } });
  canvas.addEventListener("keydown", function (e) {
    var step = { ArrowLeft: -1, ArrowRight: 1, PageUp: -10, PageDown: 10, Home: -n, End: n }[e.key];
    if (step === undefined) return;
    e.preventDefault();
    select(selected < 0 ? 0 : selected + step);
  });
  function stroke() {
    var per = canvas.getBoundingClientRect().width / n;
    document.documentElement.style.setProperty("--sw", Math.max(1, Math.min(8, per * 0.7)) + "px");
  }
  zoom.addEventListener("input", function () {
    canvas.style.width = (zoom.value * 100) + "%";
    stroke();
  });
  window.addEventListener("resize", stroke);
  stroke();
})();
