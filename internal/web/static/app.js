// Monitor's live pages: keyboard moves between library cards, a help
// dialog, the capture and progress pages' live state and the undo
// notice's timer.
// Everything here is an extra: every page works without it.
(function () {
  "use strict";

  function cards() { return Array.prototype.slice.call(document.querySelectorAll("ol.library > li.card")); }

  function current() {
    var list = cards();
    for (var i = 0; i < list.length; i++) {
      if (list[i].classList.contains("current")) return i;
    }
    return -1;
  }

  function select(i) {
    var list = cards();
    if (list.length === 0) return;
    i = Math.max(0, Math.min(list.length - 1, i));
    list.forEach(function (c) { c.classList.remove("current"); });
    var c = list[i];
    c.classList.add("current");
    var link = c.querySelector("a.author");
    if (link) link.focus({ preventScroll: true });
    c.scrollIntoView({ block: "nearest" });
  }

  function typing(el) {
    if (!el) return false;
    var tag = el.tagName;
    return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || el.isContentEditable;
  }

  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || typing(e.target)) return;
    var help = document.getElementById("keys");
    switch (e.key) {
      case "j": select(current() + 1); e.preventDefault(); break;
      case "k": select(current() - 1); e.preventDefault(); break;
      case "o":
      case "Enter": {
        var i = current();
        if (i < 0 || (e.key === "Enter" && e.target.closest && e.target.closest("a, button"))) return;
        var href = cards()[i].getAttribute("data-href");
        if (href) { window.location.href = href; e.preventDefault(); }
        break;
      }
      case "/": {
        var q = document.querySelector("form.search input[name=q]");
        if (q) { q.focus(); e.preventDefault(); }
        break;
      }
      case "?":
        if (help && typeof help.showModal === "function" && !help.open) { help.showModal(); e.preventDefault(); }
        break;
    }
  });

  // A card followed by focus (Tab) becomes the current one, so j/k go on
  // from where the reader is.
  document.addEventListener("focusin", function (e) {
    var c = e.target.closest && e.target.closest("ol.library > li.card");
    if (!c) return;
    cards().forEach(function (x) { x.classList.toggle("current", x === c); });
  });

  // The undo notice goes after a few seconds; the item stays deleted.
  var notice = document.getElementById("notice");
  if (notice && notice.querySelector("form")) {
    setTimeout(function () { notice.remove(); }, 10000);
  }

  // The capture page follows the capture through the REST API (the
  // session cookie authenticates the GET) and reloads when it ends, so
  // the server shows the final state. The meta refresh is the fallback.
  var cap = document.querySelector("[data-capture]");
  if (cap && ["queued", "downloading"].indexOf(cap.getAttribute("data-state")) >= 0) {
    var refresh = document.querySelector("meta[http-equiv=refresh]");
    if (refresh) refresh.remove();
    var label = document.getElementById("capture-state");
    var labels = { queued: cap.getAttribute("data-label-queued"), downloading: cap.getAttribute("data-label-downloading") };
    var poll = function () {
      fetch("/v1/captures/" + cap.getAttribute("data-capture"), { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
        .then(function (c) {
          if (c.state === "queued" || c.state === "downloading") {
            if (label && labels[c.state]) label.textContent = labels[c.state];
            setTimeout(poll, 1000);
          } else {
            window.location.reload();
          }
        })
        .catch(function () { setTimeout(function () { window.location.reload(); }, 3000); });
    };
    setTimeout(poll, 700);
  }

  // A profile's or channel's progress page follows its submission the
  // same way: the counts and the bar move as posts are archived, and the
  // page reloads when everything has ended (then Fetch more shows).
  var sub = document.querySelector("[data-submission]");
  if (sub && ["queued", "downloading"].indexOf(sub.getAttribute("data-state")) >= 0) {
    var meta = document.querySelector("meta[http-equiv=refresh]");
    if (meta) meta.remove();
    var subState = document.getElementById("submission-state");
    var bar = document.getElementById("submission-progress");
    var doneText = document.getElementById("submission-done");
    var subLabels = { queued: sub.getAttribute("data-label-queued"), downloading: sub.getAttribute("data-label-downloading") };
    var show = function (v) {
      var p = v.progress || {};
      ["total", "complete", "partial", "failed", "queued"].forEach(function (k) {
        var el = sub.querySelector("[data-count=" + k + "]");
        if (el && typeof p[k] === "number") {
          el.textContent = String(p[k]);
          el.parentElement.classList.toggle("some", p[k] > 0);
        }
      });
      var done = (p.complete || 0) + (p.partial || 0) + (p.failed || 0);
      if (bar && p.total > 0) { bar.max = p.total; bar.value = done; }
      if (doneText && p.total > 0) doneText.textContent = sub.getAttribute("data-done").replace("%d", done).replace("%d", p.total);
      if (subState && subLabels[v.state]) subState.textContent = subLabels[v.state];
    };
    var follow = function () {
      fetch("/v1/submissions/" + sub.getAttribute("data-submission"), { credentials: "same-origin", headers: { Accept: "application/json" } })
        .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
        .then(function (v) {
          if (v.state === "queued" || v.state === "downloading") {
            show(v);
            setTimeout(follow, 1500);
          } else {
            window.location.reload();
          }
        })
        .catch(function () { setTimeout(function () { window.location.reload(); }, 3000); });
    };
    setTimeout(follow, 700);
  }
})();
