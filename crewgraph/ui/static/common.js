/* Helpers shared by the pages: JSON requests with readable errors, and small DOM builders. */
"use strict";
var cg = (function () {
  function api(method, path, body) {
    var options = { method: method, headers: { "Accept": "application/json" }, credentials: "same-origin" };
    if (body === undefined && method !== "GET") { body = {}; }  // the server takes only JSON for changes
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    return fetch(path, options).then(function (response) {
      return response.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (e) { data = { raw: text }; }
        if (!response.ok) {
          var err = (data && data.error) || { message: response.status + " " + response.statusText };
          var message = err.message + (err.field ? " [" + err.field + "]" : "");
          throw new Error(message);
        }
        return data;
      });
    });
  }
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") node.textContent = attrs[k];
      else if (k === "class") node.className = attrs[k];
      else node.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === "string" ? document.createTextNode(c) : c); });
    return node;
  }
  function status(value) { return el("span", { "class": "status " + (value || ""), text: value || "?" }); }
  function seconds(value) { return value === null || value === undefined ? "unknown" : value.toFixed(2) + " s"; }
  function tokens(value) { return value === null || value === undefined ? "unknown" : String(value); }
  function cost(run) { return run.cost_usd === null || run.cost_usd === undefined ? "unknown" : "$" + run.cost_usd.toFixed(4); }
  function when(value) { return value ? new Date(value).toLocaleString() : "unknown"; }
  function show(message, isError) {
    var box = document.getElementById("message");
    if (!box) return;
    box.textContent = message || "";
    box.className = isError ? "error" : "muted";
  }
  return { api: api, el: el, status: status, seconds: seconds, tokens: tokens, cost: cost, when: when, show: show };
})();
