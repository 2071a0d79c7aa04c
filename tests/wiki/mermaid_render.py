"""Render Mermaid blocks with the real Mermaid library in headless Chromium (Debian
``chromium``; Mermaid from npm, installed into ``tests/wiki/mermaid`` by ``.ci/run``).

The page loads ``mermaid.min.js`` from disk, calls ``mermaid.render`` on every block and
writes the outcome of each into the DOM, which ``--dump-dom`` prints once virtual time has
run out (nothing is fetched: the page has no network resource).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

MERMAID_JS = Path(__file__).parent / "mermaid" / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic",
                 "--allow-file-access-from-files", "--virtual-time-budget=60000"]

PAGE = """<!doctype html><html><head><meta charset="utf-8"><script src="{js}"></script></head>
<body><pre id="result">pending</pre><script type="application/json" id="blocks">{blocks}</script>
<script>
(async () => {{
  const blocks = JSON.parse(document.getElementById('blocks').textContent);
  mermaid.initialize({{startOnLoad: false, securityLevel: 'strict'}});
  const out = [];
  for (let i = 0; i < blocks.length; i++) {{
    try {{
      const {{svg}} = await mermaid.render('d' + i, blocks[i]);
      out.push(svg.includes('<svg') && !svg.includes('Syntax error') ? 'ok' : 'no svg');
    }} catch (e) {{ out.push('error: ' + String(e && e.message || e).split('\\n').slice(0, 3).join(' ')); }}
  }}
  document.getElementById('result').textContent = JSON.stringify(out);
}})();
</script></body></html>"""


def chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def render_all(blocks: list[str]) -> list[str]:
    """'ok' or the error, per block."""
    browser = chromium()
    assert browser is not None and MERMAID_JS.is_file()
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "render.html"
        data = json.dumps(blocks).replace("</", "<\\/")
        page.write_text(PAGE.format(js=MERMAID_JS.as_uri(), blocks=data), encoding="utf-8")
        proc = subprocess.run([browser, *CHROMIUM_ARGS, f"--user-data-dir={tmp}/profile", "--dump-dom",
                               page.as_uri()], capture_output=True, text=True, timeout=180)
    match = re.search(r'<pre id="result">(.*?)</pre>', proc.stdout, re.S)
    assert match, f"chromium printed no result: {proc.stderr[-500:]}"
    text = html.unescape(match.group(1))
    assert text != "pending", "Mermaid did not finish rendering within the virtual time budget"
    return list(json.loads(text))
