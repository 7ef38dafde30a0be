// Client-side search of a built site, in the query language of the
// archive's own search (internal/app/query.go, whose rules and error
// positions this file follows): words are ANDed, "phrases", -exclusions,
// OR (binding tighter than AND), ( ) groups, from:, #tag and tag:, has:,
// platform:, kind:, after: and before:. Text is a case-insensitive
// substring of a post's text, author name and handles, alt texts and link
// titles, so CJK substrings are found. is: and saved: need what only the
// archive knows: a query using them gets a note, never a wrong result.
//
// The index is search-index.js, a script that sets
// window.monitorSearchIndex (internal/capsule/build/searchindex.go), so
// search works when the site is opened from disk (file://), where
// browsers refuse fetch. Results are built with DOM nodes (no innerHTML).
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

  var MAX_RUNES = 1000, MAX_TERMS = 64, MAX_DEPTH = 16;
  var CHOICES = {
    platform: ["x", "telegram"],
    kind: ["post", "profile", "channel"],
    has: ["photo", "video", "gif", "media", "quote", "poll"],
    is: ["sensitive", "private", "public", "failed"]
  };
  // Go's unicode.IsSpace, IsControl, and the runes of tags and handles.
  var SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/;
  var CONTROL = /^\p{Cc}$/u;
  var TAG = /^[\p{L}\p{Nd}\p{M}_]$/u;
  var HANDLE = /^[\p{L}\p{Nd}\p{M}_.\-]$/u;
  var EOF = 0, WORD = 1, PHRASE = 2, OR = 3, NEG = 4, OPEN = 5, CLOSE = 6;

  // A refusal: where (a rune offset), which message, and its values.
  function Refusal(pos, code, vals) { this.pos = pos; this.code = code; this.vals = vals || {}; }
  function fail(pos, code, vals) { throw new Refusal(pos, code, vals); }

  var isSpace = function (r) { return SPACE.test(r); };
  var isQuote = function (r) { return r === "\"" || r === "\u201c" || r === "\u201d"; };
  var isDelim = function (r) { return isSpace(r) || r === "(" || r === ")" || isQuote(r); };

  // lex splits the query (an array of code points) into tokens.
  function lex(rs) {
    var toks = [];
    for (var i = 0; i < rs.length;) {
      var r = rs[i];
      if (isSpace(r)) { i++; continue; }
      if (r === "(" || r === ")" || r === "-") {
        toks.push({ k: r === "(" ? OPEN : r === ")" ? CLOSE : NEG, pos: i });
        i++;
        continue;
      }
      var j = i + 1;
      if (isQuote(r)) {
        while (j < rs.length && !isQuote(rs[j])) j++;
        if (j === rs.length) fail(rs.length, "unclosed", { v: i + 1 });
        var words = [], w = "";
        for (var k = i + 1; k < j; k++) {
          if (isSpace(rs[k])) { if (w) words.push(w); w = ""; } else { w += rs[k]; }
        }
        if (w) words.push(w);
        if (words.length === 0) fail(i + 1, "emptyphrase");
        toks.push({ k: PHRASE, pos: i, text: Array.from(words.join(" ")) });
        i = j + 1;
        continue;
      }
      j = i;
      while (j < rs.length && !isDelim(rs[j])) j++;
      var text = rs.slice(i, j);
      toks.push({ k: text.join("") === "OR" ? OR : WORD, pos: i, text: text });
      i = j;
    }
    toks.push({ k: EOF, pos: rs.length });
    return toks;
  }

  function join(nodes, op) {
    if (nodes.length === 0) return null;
    if (nodes.length === 1) return nodes[0];
    return { op: op, kids: nodes };
  }

  // parse reads the query into a tree of {op, ...} nodes (null: empty).
  // It notes the first is: or saved: filter in p.unsupported.
  function parse(s) {
    var rs = Array.from(s);
    if (rs.length > MAX_RUNES) fail(MAX_RUNES, "long", { v: rs.length });
    rs.forEach(function (r, i) {
      if (CONTROL.test(r) && !isSpace(r)) fail(i, "control", { v: "U+" + r.codePointAt(0).toString(16).toUpperCase().padStart(4, "0") });
    });
    var p = { toks: lex(rs), i: 0, terms: 0, unsupported: null };
    var peek = function () { return p.toks[p.i]; };
    var next = function () { return p.toks[p.i++]; };

    function parseAnd(depth, open) {
      var nodes = [];
      for (;;) {
        var t = peek();
        if (t.k === EOF) {
          if (open >= 0) fail(t.pos, "group", { v: open + 1 });
          return join(nodes, "and");
        }
        if (t.k === CLOSE) {
          if (open < 0) fail(t.pos, "stray");
          if (nodes.length === 0) fail(t.pos, "emptygroup");
          return join(nodes, "and");
        }
        if (t.k === OR) fail(t.pos, "orbefore");
        nodes.push(parseOr(depth));
      }
    }
    function parseOr(depth) {
      var nodes = [parseUnary(depth)];
      while (peek().k === OR) {
        next();
        var t = peek();
        if (t.k === EOF || t.k === CLOSE || t.k === OR) fail(t.pos, "orafter");
        nodes.push(parseUnary(depth));
      }
      return join(nodes, "or");
    }
    function parseUnary(depth) {
      if (peek().k !== NEG) return parsePrimary(depth);
      var neg = next(), t = peek();
      if (t.pos !== neg.pos + 1 || (t.k !== WORD && t.k !== PHRASE && t.k !== OPEN)) fail(neg.pos + 1, "neg");
      return { op: "not", kid: parsePrimary(depth) };
    }
    function parsePrimary(depth) {
      var t = next();
      if (t.k === OPEN) {
        if (depth >= MAX_DEPTH) fail(t.pos, "deep", { v: MAX_DEPTH });
        var n = parseAnd(depth + 1, t.pos);
        next(); // the )
        return n;
      }
      p.terms++;
      if (p.terms > MAX_TERMS) fail(t.pos, "terms", { v: p.terms, m: MAX_TERMS });
      if (t.k === PHRASE) return { op: "text", v: t.text.join("").toLowerCase() };
      return word(t);
    }
    function word(t) {
      var w = t.text;
      if (w[0] === "#" && w.length > 1) return { op: "tag", v: checked(w.slice(1), t.pos + 1, "#", TAG) };
      var colon = w.indexOf(":");
      if (colon <= 0) return { op: "text", v: w.join("").toLowerCase() };
      var name = w.slice(0, colon).join("").toLowerCase();
      var val = w.slice(colon + 1), vpos = t.pos + colon + 1;
      switch (name) {
        case "from":
          if (val[0] === "@") { val = val.slice(1); vpos++; }
          return { op: "from", v: checked(val, vpos, "from:", HANDLE) };
        case "tag":
          return { op: "tag", v: checked(val, vpos, "tag:", TAG) };
        case "platform": case "kind": case "has": case "is":
          var v = val.join("").toLowerCase();
          if (CHOICES[name].indexOf(v) < 0) fail(vpos, "choice", { f: name + ":", v: CHOICES[name].join(", ") });
          if (name === "is" && !p.unsupported) p.unsupported = { pos: t.pos, f: "is:" };
          return { op: name, v: v };
        case "after": case "before":
          return { op: "published", cmp: name === "after" ? ">=" : "<", v: day(val, vpos, name + ":") };
        case "saved":
          if (!p.unsupported) p.unsupported = { pos: t.pos, f: "saved:" };
          return { op: "saved" };
      }
      return { op: "text", v: w.join("").toLowerCase() };
    }
    // checked is a tag's or a handle's value, lower case.
    function checked(val, vpos, prefix, ok) {
      var low = Array.from(val.join("").toLowerCase());
      for (var i = 0; i < low.length; i++) {
        if (!ok.test(low[i])) fail(vpos + i, "char", { v: low[i], f: prefix, q: "\"" + prefix + val.join("") + "\"" });
      }
      if (low.length === 0) fail(vpos, "value", { f: prefix });
      return low.join("");
    }
    // day checks a date written as 2026-12-01 and returns it.
    function day(val, vpos, prefix) {
      var s = val.join("");
      if (s === "") fail(vpos, "value", { f: prefix });
      if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(s)) fail(vpos, "date", { v: s });
      var m = +s.slice(5, 7), d = +s.slice(8);
      var at = new Date(0);
      at.setUTCFullYear(+s.slice(0, 4), m - 1, d);
      if (m < 1 || m > 12 || d < 1 || at.getUTCDate() !== d) fail(vpos, "date", { v: s });
      return s;
    }

    var tree = parseAnd(0, -1);
    return { root: tree, unsupported: p.unsupported };
  }

  // match says whether a post of the index matches a node.
  function match(n, post) {
    switch (n.op) {
      case "and": return n.kids.every(function (k) { return match(k, post); });
      case "or": return n.kids.some(function (k) { return match(k, post); });
      case "not": return !match(n.kid, post);
      case "text": return post.doc.indexOf(n.v) !== -1;
      case "tag": return post.doc.indexOf("#" + n.v) !== -1;
      case "from": return (post.hs || "").indexOf(" " + n.v + " ") !== -1;
      case "has": return (post.f || "").indexOf(" " + n.v + " ") !== -1;
      case "platform": return post.p === n.v;
      case "kind": return post.k === n.v;
      case "published": return !!post.pd && (n.cmp === ">=" ? post.pd >= n.v : post.pd < n.v);
    }
    return false;
  }

  // refuse shows why the query cannot be run, at its character, and puts
  // the cursor there.
  function refuse(pos, text) {
    status.textContent = msg("error", "At character {n}: {msg}").replace("{n}", String(pos + 1)).replace("{msg}", text);
    status.className = "error";
    input.setAttribute("aria-invalid", "true");
    var at = Array.from(query).slice(0, pos).join("").length;
    try { input.setSelectionRange(at, at); } catch (e) { /* not a text field */ }
  }
  function fill(text, vals) {
    return text.replace(/\{(\w)\}/g, function (all, k) { return vals[k] !== undefined ? String(vals[k]) : all; });
  }

  var parsed;
  try {
    parsed = parse(query);
  } catch (e) {
    if (!(e instanceof Refusal)) throw e;
    refuse(e.pos, fill(msg("q-" + e.code, "this query cannot be read"), e.vals));
    return;
  }
  if (parsed.unsupported) {
    refuse(parsed.unsupported.pos, fill(msg("q-unsupported", "{f} is not available in this site's search"), parsed.unsupported));
    return;
  }
  if (!parsed.root) { status.textContent = msg("empty", "Type words to find posts."); return; }
  var posts = window.monitorSearchIndex;
  if (!Array.isArray(posts)) { status.textContent = msg("failed", "The search index could not be loaded."); return; }
  var hits = posts.filter(function (p) {
    if (p.doc === undefined) {
      p.doc = [p.x, p.a, (p.hs || "").trim(), p.m].filter(Boolean).join("\n").toLowerCase();
    }
    return match(parsed.root, p);
  });
  status.textContent = hits.length === 1 ? msg("one", "1 post") : msg("many", "{n} posts").replace("{n}", String(hits.length));
  hits.slice(0, 200).forEach(function (p) {
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.href = root + p.u;
    a.textContent = (p.a || (p.h ? "@" + p.h : "") || msg("post", "Post")) + " · " + p.d;
    var snip = document.createElement("p");
    snip.className = "snippet";
    var x = (p.x || "").split(/\s+/).filter(Boolean).join(" ");
    snip.textContent = x.length > 240 ? x.slice(0, 240) + "…" : x;
    li.appendChild(a);
    li.appendChild(snip);
    list.appendChild(li);
  });
})();
