"""HTML citations carry a line range: each block knows the source line its text starts on."""

from __future__ import annotations

from indexer.parse.html import parse_html

PAGE = """<!doctype html>
<html><head><title>Manual</title></head>
<body>
<h1>Setup</h1>
<p>
  Plug the cable
  into port B.
</p>
<h2>Power</h2>
<table>
<tr><th>Mode</th><th>Watts</th></tr>
<tr><td>Eco</td><td>12</td></tr>
</table>
<pre>
line one
line two</pre>
</body></html>
"""


def test_html_blocks_start_on_their_source_lines() -> None:
    blocks = {b.text.split("\n")[0]: b for b in parse_html(PAGE.encode())}
    assert blocks["Plug the cable into port B."].line_start == 6
    assert blocks["Plug the cable into port B."].heading == "Setup"
    table = next(b for b in blocks.values() if "Eco" in b.text)
    assert table.line_start == 10 and table.heading == "Setup > Power"
    assert blocks["line one"].line_start == 15
    assert blocks["Setup"].line_start == 4
