/* One run: the executed graph (SVG from the server), the node panel, live updates and actions. */
"use strict";
(function () {
  var runId = decodeURIComponent(window.location.pathname.split("/").pop());
  var base = "/runs/" + encodeURIComponent(runId);
  var selected = null;
  var run = null;
  var stream = null;
  var pending = null;
  var lastSvg = null;

  function text(value) {
    if (value === null || value === undefined) return "";
    return typeof value === "string" ? value : JSON.stringify(value, null, 2);
  }
  function section(panel, title, value) {
    if (value === null || value === undefined || value === "" || (Array.isArray(value) && value.length === 0)) return;
    panel.appendChild(cg.el("h4", { text: title }));
    panel.appendChild(cg.el("pre", { "class": "section-" + title.toLowerCase().replace(/\W+/g, "-"), text: text(value) }));
  }
  function prompt(messages) {
    if (!messages) return null;
    return messages.map(function (m) { return "[" + (m.role || "?") + "] " + text(m.content); }).join("\n\n");
  }
  function showNode(data) {
    var panel = document.getElementById("panel");
    panel.innerHTML = "";
    panel.setAttribute("data-node", data.id);
    panel.appendChild(cg.el("h3", { text: data.label ? data.label + " — " + data.id : data.id }));
    var facts = [["kind", data.kind], ["status", data.status], ["duration", data.duration_ms === undefined ? "" : (data.duration_ms / 1000).toFixed(3) + " s"],
                 ["tokens", data.tokens], ["attempts", data.attempts], ["retries", data.retries], ["executions", data.executions]];
    var dl = cg.el("dl", { "class": "facts" });
    facts.forEach(function (f) {
      if (f[1] === undefined || f[1] === null || f[1] === "") return;
      dl.appendChild(cg.el("dt", { text: f[0] }));
      dl.appendChild(cg.el("dd", {}, [f[0] === "status" ? cg.status(String(f[1])) : String(f[1])]));
    });
    panel.appendChild(dl);
    section(panel, "Error", data.error);
    section(panel, "Prompt", prompt(data.prompt));
    section(panel, "Output", data.output);
    if (data.tool) section(panel, "Tool", data.tool);
    section(panel, "Tool arguments", data.tool_args);
    section(panel, "Retries", data.retry_log);
    section(panel, "Model calls", (data.llm_calls || []).map(function (c) {
      return { model: c.model, tokens: c.tokens, duration_ms: c.duration_ms, response: c.response, error: c.error };
    }));
    section(panel, "Info", data.info && Object.keys(data.info).length ? data.info : null);
    if (!data.recorded_by_this_server && !data.calls_recorded && (data.kind === "agent_step" || data.kind === "llm")) {
      panel.appendChild(cg.el("p", { "class": "muted", text: "No model calls were recorded for this node (a run saved before crewgraph kept them, or a store that does not keep them)." }));
    }
    var fork = document.getElementById("fork");
    fork.disabled = !(run && run.actions && run.actions.fork);
  }
  function selectNode(id, element) {
    selected = id;
    document.querySelectorAll("#graph g.node.selected").forEach(function (n) { n.classList.remove("selected"); });
    if (element) element.classList.add("selected");
    return cg.api("GET", base + "/nodes/" + encodeURIComponent(id).replace(/%2F/g, "/")).then(showNode)
      .catch(function (e) {
        var panel = document.getElementById("panel");
        panel.innerHTML = "";
        panel.appendChild(cg.el("h3", { text: id }));
        panel.appendChild(cg.el("p", { "class": "error", text: e.message }));
      });
  }
  function wireGraph() {
    document.querySelectorAll("#graph g.node").forEach(function (node) {
      var title = node.querySelector("title");
      var id = title ? title.textContent : node.id;
      node.setAttribute("data-node", id);
      if (id === selected) node.classList.add("selected");
      node.addEventListener("click", function (event) { event.stopPropagation(); selectNode(id, node); });
    });
  }
  function loadGraph() {
    return fetch(base + "/graph.svg", { credentials: "same-origin" }).then(function (response) {
      return response.text().then(function (body) {
        var box = document.getElementById("graph");
        if (!response.ok) {
          var message = body;
          try { message = JSON.parse(body).error.message; } catch (e) { /* not JSON */ }
          box.innerHTML = "";
          box.appendChild(cg.el("p", { "class": "error", text: "cannot draw the graph: " + message }));
          return;
        }
        if (body === lastSvg) return;  // unchanged: keep the DOM (and what is selected) as it is
        lastSvg = body;
        var start = body.indexOf("<svg");
        box.innerHTML = start >= 0 ? body.slice(start) : body;
        wireGraph();
        applyZoom();
      });
    });
  }
  function renderRun(data) {
    run = data;
    document.title = "crewgraph · " + data.name + " · " + data.run_id.slice(0, 8);
    document.getElementById("run-name").textContent = data.name + " (" + data.kind + ") " + data.run_id;
    var status = document.getElementById("run-status");
    status.innerHTML = "";
    status.appendChild(cg.status(data.status));
    document.getElementById("run-facts").textContent = "duration " + cg.seconds(data.duration_s) + " · tokens " +
      cg.tokens(data.tokens) + " · cost " + cg.cost(data) + (data.parent_run_id ? " · forked from " + data.parent_run_id.slice(0, 8) : "");
    document.getElementById("run-error").textContent = data.error || (data.job && data.job.error) || "";
    document.getElementById("resume").hidden = !data.actions.resume;
    document.getElementById("fork").hidden = !data.actions.fork;
    var form = document.getElementById("answer-form");
    form.hidden = !data.actions.answer;
    document.getElementById("question").textContent = (data.pending || []).map(function (p) { return p.method + ": " + p.question; }).join("; ");
  }
  function loadRun() { return cg.api("GET", base).then(renderRun); }
  function refresh() {
    return Promise.all([loadRun(), loadGraph()]).then(function () {
      if (selected) return selectNode(selected, document.querySelector('#graph g.node[data-node="' + CSS.escape(selected) + '"]'));
    }).catch(function (e) { cg.show(e.message, true); });
  }
  function later() {  // many events arrive together: redraw at most every 400 ms
    if (pending) return;
    pending = setTimeout(function () { pending = null; refresh(); }, 400);
  }
  function listen() {
    if (stream) stream.close();
    stream = new EventSource(base + "/events");
    stream.addEventListener("hello", function (e) {
      var data = JSON.parse(e.data);
      document.getElementById("live").textContent = data.source === "events" ? "live: events from this server" : "live: polling the store";
    });
    stream.onmessage = later;
    stream.addEventListener("end", function (e) {
      stream.close();
      stream = null;
      var data = JSON.parse(e.data);
      document.getElementById("live").textContent = data.type === "switch" ? "" : "not running";
      refresh();
      if (data.type === "switch") listen();
    });
  }
  function act(method, path, body, what) {
    cg.show(what + "...");
    return cg.api(method, path, body).then(function (job) {
      cg.show(what + ": " + job.status + (job.error ? " — " + job.error : ""), job.status === "failed");
      if (job.run_id && job.run_id !== runId) { window.location = "/view/" + encodeURIComponent(job.run_id); return; }
      refresh().then(listen);
    }).catch(function (e) { cg.show(e.message, true); });
  }
  /* Zoom and pan: a wide graph starts fitted to its box (never under the side panel); the
     buttons or ctrl+wheel zoom, dragging the background pans. */
  var zoom = null;  // null: fit the box's width (never above 100%)
  function naturalSize(svg) {
    var vb = svg.viewBox && svg.viewBox.baseVal;
    return vb && vb.width ? { w: vb.width, h: vb.height } : null;
  }
  function currentScale(svg) {
    var size = naturalSize(svg);
    if (!size) return 1;
    var box = document.getElementById("graph");
    return zoom === null ? Math.min(1, Math.max(0.05, (box.clientWidth - 16) / size.w)) : zoom;
  }
  function applyZoom() {
    var svg = document.querySelector("#graph svg");
    if (!svg) return;
    var size = naturalSize(svg);
    if (!size) return;
    var scale = currentScale(svg);
    svg.setAttribute("width", String(Math.round(size.w * scale)));
    svg.setAttribute("height", String(Math.round(size.h * scale)));
    document.getElementById("zoom-level").textContent = Math.round(scale * 100) + "%" + (zoom === null ? " (fit)" : "");
  }
  function zoomBy(factor) {
    var svg = document.querySelector("#graph svg");
    if (!svg) return;
    zoom = Math.min(4, Math.max(0.05, currentScale(svg) * factor));
    applyZoom();
  }
  document.getElementById("zoom-in").addEventListener("click", function () { zoomBy(1.25); });
  document.getElementById("zoom-out").addEventListener("click", function () { zoomBy(0.8); });
  document.getElementById("zoom-fit").addEventListener("click", function () { zoom = null; applyZoom(); });
  window.addEventListener("resize", function () { if (zoom === null) applyZoom(); });
  var graphBox = document.getElementById("graph");
  graphBox.addEventListener("wheel", function (event) {
    if (!event.ctrlKey) return;  // a plain wheel scrolls
    event.preventDefault();
    zoomBy(event.deltaY < 0 ? 1.1 : 0.9);
  }, { passive: false });
  var drag = null;
  graphBox.addEventListener("mousedown", function (event) {
    if (event.button !== 0 || (event.target.closest && event.target.closest("g.node"))) return;
    drag = { x: event.clientX, y: event.clientY, left: graphBox.scrollLeft, top: graphBox.scrollTop };
    graphBox.classList.add("panning");
  });
  window.addEventListener("mousemove", function (event) {
    if (!drag) return;
    graphBox.scrollLeft = drag.left - (event.clientX - drag.x);
    graphBox.scrollTop = drag.top - (event.clientY - drag.y);
  });
  window.addEventListener("mouseup", function () { drag = null; graphBox.classList.remove("panning"); });
  document.getElementById("resume").addEventListener("click", function () { act("POST", base + "/resume", {}, "resume"); });
  document.getElementById("answer-form").addEventListener("submit", function (event) {
    event.preventDefault();
    act("POST", base + "/answer", { answer: document.getElementById("answer").value }, "answer");
  });
  document.getElementById("fork").addEventListener("click", function () {
    if (selected) act("POST", base + "/fork", { node_id: selected }, "fork from " + selected);
  });
  refresh().then(listen);
})();
