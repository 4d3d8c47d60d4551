"""An interactive, self-contained HTML page of a graph: the Graphviz drawing with pan,
zoom and node details on click.

The page embeds the SVG Graphviz draws and a few lines of plain JavaScript --
no CDN, no external file -- so it opens offline and can be mailed around.
Drag to pan, wheel (or the + / - buttons) to zoom, "fit" to reset; clicking a
node shows what ``Node.describe()`` says about it (kind, method, labels,
join mode...), and for an executed graph its record (status, timings).
"""

from __future__ import annotations

import html
import json
import re
import tempfile
from pathlib import Path
from typing import Any

from crewgraph.export._jsonable import jsonable
from crewgraph.export.render import _atomic_write, render_dot

__all__ = ["html_page", "render_html"]

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
  html, body {{ margin: 0; height: 100%; font-family: system-ui, sans-serif; }}
  #bar {{ position: fixed; top: 0; left: 0; right: 0; height: 36px; display: flex; gap: 8px;
         align-items: center; padding: 0 12px; background: #f4f4f6; border-bottom: 1px solid #ddd; z-index: 2; }}
  #bar b {{ margin-right: auto; }}
  #view {{ position: absolute; top: 37px; left: 0; right: 320px; bottom: 0; overflow: hidden; cursor: grab; }}
  #view.dragging {{ cursor: grabbing; }}
  #view svg {{ width: 100%; height: 100%; }}
  #details {{ position: absolute; top: 37px; right: 0; width: 320px; bottom: 0; overflow: auto;
             border-left: 1px solid #ddd; padding: 12px; box-sizing: border-box; font-size: 13px; }}
  #details pre {{ white-space: pre-wrap; word-break: break-word; }}
  g.node {{ cursor: pointer; }}
  g.node.selected polygon, g.node.selected ellipse, g.node.selected path {{ stroke: #d33; stroke-width: 3; }}
</style>
</head>
<body>
<div id="bar"><b>{title}</b>
  <button id="zin" title="zoom in">+</button><button id="zout" title="zoom out">-</button>
  <button id="fit" title="fit the whole graph">fit</button></div>
<div id="view">{svg}</div>
<div id="details"><p>Click a node to see its details. Drag to pan, scroll to zoom.</p></div>
<script id="graph-details" type="application/json">{details}</script>
<script>
(function () {{
  var details = JSON.parse(document.getElementById("graph-details").textContent);
  var view = document.getElementById("view");
  var svg = view.querySelector("svg");
  svg.removeAttribute("width"); svg.removeAttribute("height");
  var box0 = svg.viewBox.baseVal;
  var start = {{x: box0.x, y: box0.y, w: box0.width, h: box0.height}};
  var box = {{x: start.x, y: start.y, w: start.w, h: start.h}};
  function apply() {{ svg.setAttribute("viewBox", [box.x, box.y, box.w, box.h].join(" ")); }}
  function zoom(f, cx, cy) {{
    var r = svg.getBoundingClientRect();
    var px = cx === undefined ? 0.5 : (cx - r.left) / r.width, py = cy === undefined ? 0.5 : (cy - r.top) / r.height;
    var nw = box.w * f, nh = box.h * f;
    box.x += (box.w - nw) * px; box.y += (box.h - nh) * py; box.w = nw; box.h = nh; apply();
  }}
  view.addEventListener("wheel", function (e) {{ e.preventDefault(); zoom(e.deltaY > 0 ? 1.15 : 1 / 1.15, e.clientX, e.clientY); }},
                        {{passive: false}});
  var drag = null;
  view.addEventListener("mousedown", function (e) {{ drag = {{x: e.clientX, y: e.clientY, moved: false}}; view.classList.add("dragging"); }});
  window.addEventListener("mousemove", function (e) {{
    if (!drag) return;
    var r = svg.getBoundingClientRect();
    var dx = (e.clientX - drag.x) * box.w / r.width, dy = (e.clientY - drag.y) * box.h / r.height;
    if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 2) drag.moved = true;
    box.x -= dx; box.y -= dy; drag.x = e.clientX; drag.y = e.clientY; apply();
  }});
  window.addEventListener("mouseup", function () {{ view.classList.remove("dragging"); setTimeout(function () {{ drag = null; }}, 0); }});
  document.getElementById("zin").onclick = function () {{ zoom(1 / 1.25); }};
  document.getElementById("zout").onclick = function () {{ zoom(1.25); }};
  document.getElementById("fit").onclick = function () {{ box = {{x: start.x, y: start.y, w: start.w, h: start.h}}; apply(); }};
  var panel = document.getElementById("details");
  function show(id, el) {{
    svg.querySelectorAll("g.node.selected").forEach(function (n) {{ n.classList.remove("selected"); }});
    if (el) el.classList.add("selected");
    var info = details[id];
    panel.innerHTML = "";
    var h = document.createElement("h3"); h.textContent = id; panel.appendChild(h);
    var pre = document.createElement("pre");
    pre.textContent = info ? JSON.stringify(info, null, 2) : "(no details)";
    panel.appendChild(pre);
  }}
  svg.querySelectorAll("g.node").forEach(function (el) {{
    el.addEventListener("click", function (e) {{
      if (drag && drag.moved) return;
      var t = el.querySelector("title");
      show(t ? t.textContent : el.id, el);
      e.stopPropagation();
    }});
  }});
}})();
</script>
</body>
</html>
"""


def _svg_body(svg: str) -> str:
    """The ``<svg>`` element alone (no XML prolog or doctype: it is inlined in HTML)."""
    found = re.search(r"<svg\b.*</svg>", svg, re.S)
    if found is None:
        raise ValueError("Graphviz produced no <svg> element")
    return found.group(0)


def html_page(svg: str, details: dict[str, Any], title: str) -> str:
    """The page text for an SVG drawing and per-node details (``{node_id: {...}}``)."""
    data = json.dumps(jsonable(details), ensure_ascii=False, sort_keys=True).replace("</", "<\\/")
    return _PAGE.format(title=html.escape(title), svg=_svg_body(svg), details=data)


def render_html(dot: str, details: dict[str, Any], path: str | Path, title: str) -> Path:
    """Draw ``dot`` with Graphviz and write the interactive page to ``path``."""
    target = Path(path).expanduser()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="crewgraph-html-") as tmp:
        svg = render_dot(dot, Path(tmp) / "graph.svg").read_text(encoding="utf-8")
    _atomic_write(target, html_page(svg, details, title).encode("utf-8"))
    return target
