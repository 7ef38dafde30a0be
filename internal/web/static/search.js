// Client-side search of a built site. The index is search-index.js, a
// script that sets window.monitorSearchIndex, so search works when the
// site is opened from disk (file://), where browsers refuse fetch. Every
// word of the query must occur in a post's author, handle, date, tags or
// text. Results are built with DOM nodes (no innerHTML).
(function () {
  "use strict";
  var list = document.getElementById("search-results");
  var status = document.getElementById("search-status");
  var input = document.getElementById("q");
  if (!list || !status || !input) return;
  var root = list.getAttribute("data-root") || "";
  // The page's texts, in its language (data-msg-* of the results list).
  var msg = function (name, fallback) { return list.getAttribute("data-msg-" + name) || fallback; };
  var query = new URLSearchParams(window.location.search).get("q") || "";
  input.value = query;
  var terms = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (terms.length === 0) { status.textContent = msg("empty", "Type words to find posts."); return; }
  var posts = window.monitorSearchIndex;
  if (!Array.isArray(posts)) { status.textContent = msg("failed", "The search index could not be loaded."); return; }
  var hits = posts.filter(function (p) {
    var hay = (p.a + " " + p.h + " " + p.d + " " + p.g + " " + p.x).toLowerCase();
    return terms.every(function (t) { return hay.indexOf(t) !== -1; });
  });
  status.textContent = hits.length === 1 ? msg("one", "1 post") : msg("many", "{n} posts").replace("{n}", String(hits.length));
  hits.slice(0, 200).forEach(function (p) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = root + p.u;
    a.textContent = (p.a || msg("post", "Post")) + " · " + p.d;
    var snip = document.createElement("p");
    snip.className = "snippet";
    snip.textContent = p.x.length > 240 ? p.x.slice(0, 240) + "…" : p.x;
    li.appendChild(a);
    li.appendChild(snip);
    list.appendChild(li);
  });
})();
