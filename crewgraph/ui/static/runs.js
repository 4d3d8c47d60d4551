/* The run list: refreshed every few seconds; the kick-off form for registered targets. */
"use strict";
(function () {
  var targets = [];
  function renderRuns(data) {
    document.getElementById("stores").textContent = data.checkpoint_db + " · " + data.flow_db;
    var body = document.querySelector("#runs tbody");
    body.innerHTML = "";
    data.runs.forEach(function (run) {
      var link = cg.el("a", { href: "/view/" + encodeURIComponent(run.run_id), text: run.run_id.slice(0, 12) });
      var waiting = (run.pending || []).map(function (p) { return p.question; }).join("; ");
      body.appendChild(cg.el("tr", { "data-run": run.run_id }, [
        cg.el("td", { "class": "id" }, [link]), cg.el("td", {}, run.demo_model ? [run.name + " ", cg.el("span", { "class": "demo", text: "demo model", title: "answered by the demo model (--llm fake), not a real one" })] : [run.name]), cg.el("td", { text: run.kind }),
        cg.el("td", {}, [cg.status(run.status)]), cg.el("td", { text: cg.seconds(run.duration_s) }),
        cg.el("td", { text: cg.tokens(run.tokens) }), cg.el("td", { text: cg.cost(run), title: run.cost }),
        cg.el("td", { text: cg.when(run.updated_at) }), cg.el("td", { text: waiting })
      ]));
    });
    document.getElementById("empty").hidden = data.runs.length > 0;
  }
  function refresh() {
    return cg.api("GET", "/runs?limit=200").then(renderRuns).catch(function (e) { cg.show(e.message, true); });
  }
  function renderFields() {
    var box = document.getElementById("input-fields");
    box.innerHTML = "";
    var chosen = targets.filter(function (t) { return t.name === document.getElementById("target").value; })[0];
    if (!chosen) return;
    if (chosen.inputs.length === 0) {
      box.appendChild(cg.el("label", {}, ["inputs (JSON) ", cg.el("input", { name: "json", id: "inputs-json", value: "{}", size: "30" })]));
    }
    chosen.inputs.forEach(function (name) {
      var value = chosen.default_inputs[name] === undefined ? "" : String(chosen.default_inputs[name]);
      box.appendChild(cg.el("label", {}, [name + " ", cg.el("input", { name: name, "data-input": name, value: value })]));
    });
  }
  function loadTargets() {
    return cg.api("GET", "/targets").then(function (data) {
      targets = data.targets;
      var select = document.getElementById("target");
      select.innerHTML = "";
      targets.forEach(function (t) { select.appendChild(cg.el("option", { value: t.name, text: t.name + " (" + t.kind + ")" })); });
      document.getElementById("kickoff").hidden = targets.length === 0;
      document.getElementById("no-targets").hidden = targets.length > 0;
      renderFields();
    });
  }
  document.getElementById("target").addEventListener("change", renderFields);
  document.getElementById("kickoff").addEventListener("submit", function (event) {
    event.preventDefault();
    var inputs = {};
    var json = document.getElementById("inputs-json");
    if (json) {
      try { inputs = JSON.parse(json.value || "{}"); } catch (e) { cg.show("inputs: not valid JSON (" + e.message + ")", true); return; }
    }
    document.querySelectorAll("[data-input]").forEach(function (field) { inputs[field.getAttribute("data-input")] = field.value; });
    cg.show("starting...");
    cg.api("POST", "/kickoff", { target: document.getElementById("target").value, inputs: inputs }).then(function (job) {
      if (job.run_id) { window.location = "/view/" + encodeURIComponent(job.run_id); }
      else { cg.show(job.status === "failed" ? "failed: " + job.error : "queued as " + job.job_id, job.status === "failed"); refresh(); }
    }).catch(function (e) { cg.show(e.message, true); });
  });
  loadTargets().catch(function (e) { cg.show(e.message, true); });
  refresh();
  setInterval(refresh, 3000);
})();
