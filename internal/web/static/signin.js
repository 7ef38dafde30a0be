// A Telegram Mini App opens /login?app=1 with its launch data in the
// address's fragment (tgWebAppData=…). Hand it to the server, which
// checks Telegram's signature, then go to the library.
(function () {
  var el = document.getElementById('miniapp');
  if (!el) return;
  var params = new URLSearchParams(location.hash.slice(1));
  var initData = params.get('tgWebAppData');
  if (!initData) return;
  var body = new URLSearchParams();
  body.set('initData', initData);
  fetch(el.dataset.endpoint, {method: 'POST', body: body, credentials: 'same-origin', redirect: 'follow'})
    .then(function (r) { if (r.ok || r.redirected) location.replace('/'); else el.textContent = r.statusText; });
})();
