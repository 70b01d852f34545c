// The console's only script: follow the live stream (SSE) and refresh the page's <main> when the
// console folded new records. No framework; the server renders every page.
(function () {
  var live = document.getElementById('live');
  var refreshing = false;
  var pending = false;
  function refresh() {
    if (refreshing) { pending = true; return; }
    refreshing = true;
    fetch(location.href, { headers: { 'Accept': 'text/html' } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html) {
          var doc = new DOMParser().parseFromString(html, 'text/html');
          var fresh = doc.getElementById('main');
          if (fresh) {
            document.getElementById('main').replaceWith(fresh);
            document.body.dataset.version = fresh.dataset.version;
          }
        }
      })
      .finally(function () {
        refreshing = false;
        if (pending) { pending = false; setTimeout(refresh, 500); }
      });
  }
  var source = new EventSource('/live');
  source.onopen = function () { live.textContent = 'live'; };
  source.onerror = function () { live.textContent = 'live: reconnecting…'; };
  source.onmessage = function (e) {
    var s = JSON.parse(e.data);
    document.body.dataset.liveVersion = s.version;
    document.body.dataset.livePreemptions = s.appliedPreemptions;
    live.textContent = 'live · ' + s.version + ' records · ' + s.appliedPreemptions
      + ' preemptions applied · ' + s.waiting + ' waiting';
    if (String(s.version) !== document.body.dataset.version) { refresh(); }
  };
})();
