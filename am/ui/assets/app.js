// ebb's status pages refresh themselves: every few hundred milliseconds
// the page polls the AM's JSON API (api/v1/...) and the SVG it draws, and
// rewrites its tables in place, so an operator never reloads. Every URL is
// relative to the UI's root, which the page states in data-root, so this
// works behind the ResourceManager's web proxy.
"use strict";
(function () {
  const body = document.body;
  const root = body.dataset.root || "./";
  const key = body.dataset.key ? "key=" + encodeURIComponent(body.dataset.key) : "";
  const poll = Number(body.dataset.pollMs) || 1000;
  const url = (p) => root + p + (key ? (p.includes("?") ? "&" : "?") + key : "");
  const esc = (s) => String(s == null ? "" : s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
  const ts = (t) => (t ? new Date(t).toISOString().replace("T", " ").slice(0, 19) : "");
  const link = (u) => (u.includes("://") ? u : root + u);
  const num = (n) => '<td class="num">' + n + "</td>";
  const state = (s) => '<span class="state s-' + esc(s) + '">' + esc(s) + "</span>";
  const bar = (f) => '<div class="bar"><div style="width:' + (100 * f).toFixed(1) + '%"></div></div>';
  const set = (id, html) => { const e = document.getElementById(id); if (e && e.innerHTML !== html) e.innerHTML = html; };
  const dur = (s) => { s = Math.round(s); const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60); return (h ? h + "h" : "") + (h || m ? m + "m" : "") + (s % 60) + "s"; };

  // latency is the group's p95 / target cell, as Group.Latency writes it.
  const latency = (g) => (g.measuredDAGs ? String(+g.measuredP95Slowdown.toPrecision(3)) : "-") + (g.targetP95Slowdown ? " / " + g.targetP95Slowdown : "") +
    (g.measuredDAGs ? " (" + g.measuredDAGs + (g.measuredDAGs === 1 ? " DAG)" : " DAGs)") : "");

  const rows = {
    dags: (ds) => ds.map((d) => '<tr data-dag="' + esc(d.id) + '"><td><a href="' + root + "dag/" + esc(d.id) + '">' + esc(d.id) + "</a></td><td>" + esc(d.name) + "</td><td>" + state(d.state) +
      '</td><td class="progress">' + bar(d.progress) + '<span class="pct">' + Math.round(100 * d.progress) + "%</span></td>" + num(d.succeeded + "/" + d.tasks) + num(d.running) + num(d.failedAttempts) +
      "<td>" + (d.goal ? ts(d.goal) + ' <span class="goal g-' + esc(d.goalStatus) + '">' + esc(d.goalStatus) + "</span>" : "-") + '</td><td><a href="' + root + "group/" + esc(d.group) + '">' + esc(d.group) + "</a></td>" +
      num(d.sReq.toFixed(1)) + num(d.utility.toFixed(2)) + num(d.slots) + '<td class="diag">' + esc(d.diagnostics) + "</td></tr>").join(""),
    groups: (gs) => gs.map((g) => '<tr data-group="' + esc(g.name) + '"><td><a href="' + root + "group/" + esc(g.name) + '">' + esc(g.name) + "</a></td><td>" + esc(g.kind) + "</td><td>" + state(g.state) + "</td>" +
      num(Math.round(g.usagePercent) + "%") + num(g.autoscaled ? g.scaleOutThresholdPercent + "% / " + g.scaleInThresholdPercent + "%" : "off") + num(latency(g)) + num(g.workersWanted) + num(g.workers) + num(g.workersPending + (g.pendingReason ? ' <span class="diag pending-reason">' + esc(g.pendingReason) + "</span>" : "")) +
      num(g.workersDraining) + num(g.nodes) + num(g.nodesDraining) + num(g.queuedAttempts) + num(g.runningAttempts) + num(g.taskMB + " / " + g.offeredMB) + "</tr>").join(""),
    nodes: (ns) => ns.map((n) => '<tr data-node="' + esc(n.id) + '"><td>' + esc(n.id) + "</td>" + num(n.capacityMB) + num(n.containerMB) + num(n.taskMB) + '<td><span class="pack p-' + esc(n.packing) + '">' + esc(n.packing) + "</span></td>" +
      num(n.workers) + "<td>" + (n.state !== "RUNNING" ? state(n.state) + (n.drainBy ? " until " + ts(n.drainBy) + " " : " ") : "") + (n.draining ? '<span class="state s-SCALE_IN">draining</span>' : "") + "</td><td>" + esc(n.groups.join(", ")) + "</td></tr>").join(""),
    transitions: (ts_) => ts_.map((t) => "<tr><td>" + ts(t.at) + '</td><td><a href="' + root + "group/" + esc(t.group) + '">' + esc(t.group) + "</a></td><td>" + esc(t.from) + " → " + state(t.to) + "</td><td>" + esc(t.reason) + "</td></tr>").join(""),
    moves: (ms) => ms.map((m) => "<tr><td>" + ts(m.at) + "</td><td>" + esc(m.worker) + "</td><td>" + esc(m.from) + "</td><td>" + esc(m.to) + "</td></tr>").join(""),
    vertices: (vs, dag) => vs.map((v) => '<tr id="vertex-' + esc(v.name) + '"><td><a href="' + root + "dag/" + esc(dag) + "/vertex/" + esc(v.name) + '">' + esc(v.name) + '</a></td><td class="progress">' + bar(v.tasks ? v.succeeded / v.tasks : 0) + "</td>" + num(v.tasks) + num(v.succeeded) + num(v.running) + num(v.queued) + num(v.waiting) + num(v.memoryMB) + "</tr>").join(""),
    attempts: (as) => as.map((a) => '<tr class="attempt" data-attempt="' + esc(a.id) + '"><td>' + esc(a.id) + "</td><td>" + esc(a.vertex) + "</td>" + num(a.task) + num(a.number) + "<td>" + state(a.state) + (a.status ? ' <span class="status muted">' + esc(a.status) + "</span>" : "") + "</td><td>" + esc(a.worker) + "</td><td>" + esc(a.node) + "</td><td>" + ts(a.start) + "</td>" +
      num(a.durationSecs.toFixed(1) + " s") + num(a.end ? a.exitCode : "") + "<td>" + (a.logs ? '<a class="log-stdout" href="' + esc(link(a.logs.stdout)) + '">stdout</a> <a class="log-stderr" href="' + esc(link(a.logs.stderr)) + '">stderr</a> <a class="log-worker" href="' + esc(link(a.logs.worker)) + '">worker</a>' : "") + "</td></tr>" +
      (a.diagnostics && a.state !== "SUCCEEDED" ? '<tr class="failure"><td colspan="11"><pre>' + esc(a.diagnostics) + "</pre></td></tr>" : "")).join(""),
    counters: (cs) => (cs && cs.length ? '<h3>Counters</h3>\n<table class="grid"><thead><tr><th>group</th><th>counter</th><th>total</th><th>by vertex</th></tr></thead>\n<tbody>' +
      cs.map((c) => "<tr><td>" + esc(c.group) + "</td><td>" + esc(c.name) + '</td><td class="num">' + c.value + "</td><td>" + Object.keys(c.vertices || {}).sort().map((v) => esc(v) + ": " + c.vertices[v] + " ").join("") + "</td></tr>").join("") + "</tbody></table>" : ""),
    workers: (ws) => ws.map((w) => '<tr data-worker="' + esc(w.id) + '"><td>' + esc(w.id) + '</td><td><a href="' + root + "group/" + esc(w.group) + '">' + esc(w.group) + "</a></td><td><code>" + esc(w.kind) + "</code></td><td>" + esc(w.node) + "</td><td>" + esc(w.container) + "</td>" +
      num(w.memoryMB) + num(w.taskMB) + "<td>" + esc(w.running.join(", ")) + "</td><td>" + Object.keys(w.outputs).sort().map((d) => '<a href="' + root + "dag/" + esc(d) + '">' + esc(d) + "</a>: " + w.outputs[d] + " ").join("") +
      "</td><td>" + (w.stopping ? "stopping" : w.draining ? "draining" : "active") + (w.recycleTo ? " → " + esc(w.recycleTo) : "") + "</td><td>" + (w.workerLog ? '<a href="' + esc(link(w.workerLog)) + '">worker log</a>' : "") + "</td></tr>").join(""),
  };

  async function json(p) {
    const r = await fetch(url(p), { cache: "no-store" });
    if (!r.ok) throw new Error(p + ": " + r.status);
    return r.json();
  }
  async function svg(p, el) {
    const r = await fetch(url(p), { cache: "no-store" });
    if (r.ok) { const t = await r.text(); if (el.innerHTML !== t) el.innerHTML = t; }
  }
  function header(o) {
    set("uptime", dur(o.uptimeSecs));
  }
  async function charts() {
    for (const el of document.querySelectorAll("[data-chart]")) await svg("svg/group/" + encodeURIComponent(el.dataset.chart), el);
  }

  const pages = {
    async overview() {
      const o = await json("api/v1/overview");
      header(o);
      set("dags", rows.dags(o.dags)); set("groups", rows.groups(o.groups)); set("nodes", rows.nodes(o.nodes)); set("transitions", rows.transitions(o.transitions));
      const have = [...document.querySelectorAll("[data-chart]")].map((e) => e.dataset.chart).join();
      if (have !== o.groups.map((g) => g.name).join()) {
        set("charts", o.groups.map((g) => '<figure class="chartbox"><figcaption><a href="' + root + "group/" + esc(g.name) + '">' + esc(g.name) + '</a>: memory usage, autoscaler state and workers, last hour</figcaption><div class="chart" data-chart="' + esc(g.name) + '"></div></figure>').join(""));
      }
      await charts();
    },
    async dag() {
      const g = document.getElementById("graph");
      const q = g.dataset.vertex ? "?vertex=" + encodeURIComponent(g.dataset.vertex) : Number(g.dataset.limit) > 0 ? "?limit=" + g.dataset.limit : "";
      const d = await json("api/v1/dags/" + encodeURIComponent(g.dataset.dag) + q);
      set("dagstate", esc(d.state));
      set("vertices", rows.vertices(d.vertices, d.id)); set("attempts", rows.attempts(d.attempts)); set("counters", rows.counters(d.counters));
      set("attemptnote", d.attempts.length < d.attemptsTotal ? "The latest " + d.attempts.length + " of " + d.attemptsTotal + " attempts; each vertex's page lists all of its own." : "");
      await svg("svg/dag/" + encodeURIComponent(g.dataset.dag), g);
    },
    async group() {
      const el = document.querySelector("[data-chart]");
      const g = await json("api/v1/groups/" + encodeURIComponent(el.dataset.chart));
      set("groupstate", esc(g.state));
      set("groups", rows.groups([g])); set("transitions", rows.transitions(g.transitions)); set("moves", rows.moves(g.moves));
      await charts();
    },
    async workers() {
      const [o, ws] = await Promise.all([json("api/v1/overview"), json("api/v1/workers")]);
      header(o);
      set("workers", rows.workers(ws)); set("nodes", rows.nodes(o.nodes));
    },
  };

  // window.ebbRefreshes counts the refreshes done, so a test (or a curious
  // operator) can see the page is live without reloading it.
  window.ebbRefreshes = 0;
  async function tick() {
    try {
      await pages[body.dataset.page]();
      window.ebbRefreshes++;
      document.getElementById("live")?.classList.remove("stale");
    } catch (e) {
      document.getElementById("live")?.classList.add("stale");
    }
    if (body.dataset.live === "true") setTimeout(tick, poll);
  }
  if (pages[body.dataset.page]) setTimeout(tick, poll);
})();
