#!/usr/bin/env python3
"""A/B of the SessionStart hook across megg binaries (docs/benchmarks.md, "musl, and its allocator").

Usage: python3 benches/ab_hook.py BINARY... ; each runs `--version` and `context --json` on the same
fixture (a git repository, a 120-entry knowledge file), interleaved, 61 runs each; prints medians."""
import subprocess, time, statistics, sys, os, tempfile, pathlib
bins = sys.argv[1:]
d = pathlib.Path(tempfile.mkdtemp())
subprocess.run(["git","init","-q",str(d)],check=True)
m = d/".megg"; m.mkdir()
(m/"info.md").write_text("---\ncreated: 2026-01-01\n---\n# Shop\n\nThe storefront.\n")
entries = []
for i in range(120):
    entries.append(f"## 2026-01-{(i%28)+1:02d} - Decision number {i} about the checkout flow\n\n**Type:** decision\n**Topics:** checkout, payments, api{i%7}\n\nWe decided to keep the payment form server-rendered because the client bundle grew too large; see src/pay/form{i}.rs for details and the numbers we measured in November.\n\n---\n")
(m/"knowledge.md").write_text("# Knowledge\n\n" + "".join(entries))
env = dict(os.environ, MEGG_NOW="2026-11-27T00:00:00Z")
def run(b, args):
    t=time.perf_counter(); subprocess.run([b]+args, cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env); return time.perf_counter()-t
for b in bins: run(b, ["context","--json"]); run(b, ["context","--json"])
res = {b:{"v":[], "c":[]} for b in bins}
for _ in range(61):
    for b in bins:
        res[b]["v"].append(run(b, ["--version"]))
        res[b]["c"].append(run(b, ["context","--json"]))
for b in bins:
    v=statistics.median(res[b]["v"])*1000; c=statistics.median(res[b]["c"])*1000
    print(f"{b}: --version {v:.2f} ms, context --json {c:.2f} ms ({c/v:.2f} x)")
