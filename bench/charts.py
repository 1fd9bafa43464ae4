#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Draws the benchmarks' comparison charts as PNG from the JSON they wrote.

    python3 bench/charts.py OUTDIR JSON...

One chart per JSON file, OUTDIR/<file name without .json>.png, chosen by the file's "bench" field:
  launch_overhead  (tkrt_bench launch)  ns per launch of every path, median with p10-p90, against
                   the anchors: (a) the raw driver loop and (d) jaxlib's triton_kernel_call
  jax_calls        (bench/jax_calls.py)  tkrt/jaxlib per call, per command-buffer mode, target API
                   and kind
  jax_pipeline     (bench/jax_pipeline.py)  tkrt/jaxlib, tkrt/floorL and tkrt/floorLI per mode,
                   shape and API (medians, with each ratio's range over the runs)
  tuning           (tkrt_bench tune)  first-call wall ms: tkrt's first process (decode, module
                   load, tune + run), its second (decision from the store) and jaxlib
  torch_launch     (bench/torch_launch.py)  host us per launch of the add from PyTorch, every way
                   measured (median, p10-p90); skipped ways left out
  tune_matmul      (bench/tune_matmul.py)  first-call ms, cold and warm: tkrt process 1 and 2, jaxlib
Files of other benchmarks (threads, module_load) are named and skipped. bench/run_gpu.sh and
bench/run_perf.sh run this on their JSON at the end (into $OUT/charts). Needs matplotlib (exit 2
without it, or on a usage mistake); exit 1 when a file could not be read or drawn.
"""

import json
import os
import sys

USAGE = "usage: python3 bench/charts.py OUTDIR JSON..."

# Colours: tkrt's paths and results, the anchors it is measured against, the floors.
TKRT, ANCHOR, FLOOR, SECOND = "#1f77b4", "#7f7f7f", "#2ca02c", "#ff7f0e"


class ChartError(Exception):
  """A JSON file that does not hold what its chart needs."""


def _field(data, *keys):
  """data[keys[0]][keys[1]]..., or a ChartError naming the missing field."""
  value = data
  for i, key in enumerate(keys):
    try:
      value = value[key]
    except (KeyError, IndexError, TypeError):
      raise ChartError(f"no field {'.'.join(str(k) for k in keys[:i + 1])}") from None
  return value


def _subtitle(data):
  """Where and when: device, commit, time, as far as the file says."""
  parts = []
  device = data.get("device")
  if isinstance(device, dict) and device.get("name"):
    parts.append(str(device["name"]))
  if data.get("commit"):
    parts.append(f"commit {data['commit']}")
  if data.get("time_utc"):
    parts.append(str(data["time_utc"]))
  if data.get("quick"):
    parts.append("quick run")
  return ", ".join(parts)


def _ratio(x):
  """A ratio with enough digits to tell small ones apart (0.23x, 0.004x)."""
  return f"{x:.3f}x" if x < 0.1 else f"{x:.2f}x"


def _title(ax, title, data):
  sub = _subtitle(data)
  ax.set_title(title + (f"\n{sub}" if sub else ""), fontsize=10)


def launch_overhead(plt, data):
  paths = _field(data, "paths")
  measured = [p for p in paths if p.get("measured")]
  if not measured:
    raise ChartError("no path was measured")
  base = next((p for p in measured if p.get("id") == "a_raw"), None)
  fig, ax = plt.subplots(figsize=(10, 0.5 * len(paths) + 2.4))
  labels, values, low, high, colours = [], [], [], [], []
  for p in paths:
    labels.append(_field(p, "label").strip())
    if p.get("measured"):
      stats = _field(p, "ns_per_launch")
      median = _field(stats, "median")
      values.append(median)
      low.append(median - stats.get("p10", median))
      high.append(stats.get("p90", median) - median)
      colours.append(ANCHOR if p.get("id") in ("a_raw", "d_jaxlib") else TKRT)
    else:
      values.append(0)
      low.append(0)
      high.append(0)
      colours.append(ANCHOR)
  rows = list(range(len(paths)))
  ax.barh(rows, values, xerr=[low, high], color=colours, capsize=3)
  ax.set_yticks(rows)
  ax.set_yticklabels(labels, fontsize=8)
  ax.invert_yaxis()  # the JSON's order, top to bottom
  right = max(v + h for v, h in zip(values, high))
  for row, p, value, h in zip(rows, paths, values, high):
    if not p.get("measured"):
      ax.text(right * 0.01, row, f"not measured: {p.get('why_not', '?')}", va="center",
              fontsize=7, color=ANCHOR)
    else:
      ratio = p.get("ratio_to_a")
      text = f"{value:.0f} ns" + (f"  ({ratio:.2f}x (a))" if ratio is not None else "")
      ax.text(value + h + right * 0.01, row, text, va="center", fontsize=8)
  if base:
    a = _field(base, "ns_per_launch", "median")
    for factor, style, what in ((1.10, ":", "1.10x (a): target for (b)"),
                                (1.20, "-.", "1.20x (a): target for (c)")):
      ax.axvline(a * factor, color=ANCHOR, linestyle=style, linewidth=1, label=what)
    fig.legend(loc="lower center", ncol=2, fontsize=8)
  ax.set_xlim(0, right * 1.35)
  ax.set_xlabel("ns per launch (median; whiskers p10 to p90); grey: the anchors (a) and (d)")
  _title(ax, "Launch overhead per path", data)
  fig.tight_layout(rect=(0, 0.06 if base else 0, 1, 1))  # room for the legend below
  return fig


def jax_calls(plt, data):
  rows = _field(data, "rows")
  labels, ratios = [], []
  for r in rows:
    j, t = r.get("jaxlib") or {}, r.get("tkrt") or {}
    labels.append(f"{_field(r, 'command_buffers')}\n{_field(r, 'api')}\n{_field(r, 'kind')}")
    ok = j.get("measured") and t.get("measured")
    ratios.append(_field(t, "us_per_call") / _field(j, "us_per_call") if ok else None)
  if all(x is None for x in ratios):
    raise ChartError("no row has both jaxlib and tkrt measured")
  fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(rows) + 2), 4.5))
  colours = [TKRT if "ffi" in label else SECOND for label in labels]
  xs = list(range(len(rows)))
  ax.bar(xs, [x or 0 for x in ratios], color=colours)
  for x, ratio in zip(xs, ratios):
    ax.text(x, (ratio or 0) + 0.02, f"{ratio:.2f}" if ratio is not None else "not measured",
            ha="center", va="bottom", fontsize=8)
  ax.axhline(1.0, color=ANCHOR, linestyle="--", linewidth=1, label="jaxlib (1.0)")
  ax.set_xticks(xs)
  ax.set_xticklabels(labels, fontsize=8)
  ax.set_ylabel("tkrt µs per call / jaxlib's (lower is better)")
  ax.set_xlabel("command buffers / target API (blue: typed FFI, orange: legacy) / kind")
  ax.set_ylim(0, max(1.3, max(x or 0 for x in ratios) * 1.2))
  ax.legend(loc="upper right", fontsize=8)
  _title(ax, f"Inside JAX: tkrt/jaxlib per call (K = {data.get('k', '?')} calls per jit)", data)
  fig.tight_layout()
  return fig


PIPELINE_RATIOS = (("tkrt_over_jaxlib", "tkrt / jaxlib", TKRT),
                   ("tkrt_over_floor_launch", "tkrt / floorL", FLOOR),
                   ("tkrt_over_floor_init", "tkrt / floorLI", SECOND))


def jax_pipeline(plt, data):
  rows = _field(data, "rows")
  modes = list(dict.fromkeys(_field(r, "mode") for r in rows))
  if not modes:
    raise ChartError("no rows")
  width = 0.27
  fig, axes = plt.subplots(1, len(modes), figsize=(5.5 * len(modes), 5.2), sharey=True,
                           squeeze=False)
  top = 1.2
  for ax, mode in zip(axes[0], modes):
    mine = [r for r in rows if r["mode"] == mode]
    xs = list(range(len(mine)))
    for i, (key, label, colour) in enumerate(PIPELINE_RATIOS):
      values = [r.get(key) for r in mine]
      spans = [r.get(key + "_runs") or [] for r in mine]
      low = [v - min(s) if v is not None and s else 0 for v, s in zip(values, spans)]
      high = [max(s) - v if v is not None and s else 0 for v, s in zip(values, spans)]
      keep = [j for j, v in enumerate(values) if v is not None]  # floorLI: typed FFI only
      ax.bar([xs[j] + (i - 1) * width for j in keep], [values[j] for j in keep], width,
             yerr=[[low[j] for j in keep], [high[j] for j in keep]], color=colour,
             label=label if ax is axes[0][0] else None, capsize=2)
      top = max([top] + [values[j] + high[j] for j in keep])
    ax.axhline(1.0, color=ANCHOR, linestyle="--", linewidth=1)
    ax.set_xticks(xs)
    ax.set_xticklabels([f"{r['shape'].replace('chain_', 'chain ')}\n{r['api']}".replace(" ", "\n", 1)
                        if r["shape"].startswith("chain_") else f"{r['shape']}\n{r['api']}"
                        for r in mine], fontsize=7)
    ax.set_title(f"command buffers: {mode}", fontsize=9)
  axes[0][0].set_ylim(0, top * 1.1)
  axes[0][0].set_ylabel("ratio (lower is better; whiskers: range over runs)")
  fig.legend(loc="lower center", ncol=len(PIPELINE_RATIOS), fontsize=8)
  sub = _subtitle(data)
  runs = data.get("runs")
  fig.suptitle("Pipeline and chains under XLA: tkrt against jaxlib and the floors"
               + (f" (medians of {runs} runs)" if runs and runs > 1 else "")
               + (f"\n{sub}" if sub else ""), fontsize=10)
  fig.tight_layout(rect=(0, 0.06, 1, 1))  # room for the legend below
  return fig


def tuning(plt, data):
  rows = []
  for key, label in (("tkrt_process_1", "tkrt, process 1\n(empty store)"),
                     ("tkrt_process_2", "tkrt, process 2\n(same store)")):
    r = _field(data, key)
    rows.append((label, [_field(r, "decode_ms"), _field(r, "prepare_ms"),
                         _field(r, "first_launch_ms")], _field(r, "first_call_total_ms")))
  jax = data.get("jaxlib") or {}
  if jax.get("measured"):
    rows.append(("jaxlib\ntriton_kernel_call", None, _field(jax, "first_call_ms")))
  fig, ax = plt.subplots(figsize=(10, 1.0 * len(rows) + 2.2))
  ys = list(range(len(rows)))
  parts = (("decode", "#9ecae1"), ("module load", TKRT), ("tune + run", SECOND))
  right = max(total for _, _, total in rows)
  for y, (label, split, total) in zip(ys, rows):
    if split is None:
      ax.barh(y, total, color=ANCHOR, label="jaxlib (whole first call)")
    else:
      left = 0.0
      for (name, colour), ms in zip(parts, split):
        ax.barh(y, ms, left=left, color=colour, label=name if y == 0 else None)
        left += ms
    text = f"{total:.1f} ms"
    if jax.get("measured") and split is not None:
      text += f"  ({_ratio(total / jax['first_call_ms'])} jaxlib)"
    ax.text(total + right * 0.01, y, text, va="center", fontsize=8)
  ax.set_yticks(ys)
  ax.set_yticklabels([label for label, _, _ in rows], fontsize=8)
  ax.invert_yaxis()
  ax.set_xlim(0, right * 1.3)
  ax.set_xlabel("wall ms of the first call in a process (synchronised)")
  fig.legend(loc="lower center", ncol=4, fontsize=8)
  _title(ax, f"Tuning cost: first call of {data.get('vector', 'the autotuned call')}", data)
  fig.tight_layout(rect=(0, 0.07, 1, 1))  # room for the legend below
  return fig


def tune_matmul(plt, data):
  rows = [r for r in _field(data, "rows") if "error" not in r]
  if not rows:
    raise ChartError("every run failed")
  series = (("tkrt_process_1_ms", "tkrt, process 1", TKRT),
            ("tkrt_process_2_ms", "tkrt, process 2 (store)", SECOND),
            ("jaxlib_ms", "jaxlib", ANCHOR))
  fig, ax = plt.subplots(figsize=(9, 4.5))
  width = 0.27
  xs = list(range(len(rows)))
  top = 0.0
  for i, (key, label, colour) in enumerate(series):
    values = [r.get(key) for r in rows]
    offset = [x + (i - 1) * width for x in xs]
    ax.bar(offset, [v or 0 for v in values], width, color=colour, label=label)
    for x, v, r in zip(offset, values, rows):
      if v is None:
        continue
      text = f"{v:.0f}"
      if key != "jaxlib_ms" and r.get("jaxlib_ms"):
        text += f"\n{_ratio(v / r['jaxlib_ms'])}"
      ax.text(x, v, text, ha="center", va="bottom", fontsize=7)
      top = max(top, v)
  configs = data.get("configs")
  ax.set_xticks(xs)
  ax.set_xticklabels([str(r["run"]) for r in rows])
  ax.set_ylim(0, top * 1.35)
  ax.set_ylabel("first-call wall ms (labels: ms, and x jaxlib)")
  ax.legend(loc="upper left", fontsize=8)
  _title(ax, "Tuning cost: the Triton matmul's first call"
         + (f" ({len(configs)} configs)" if isinstance(configs, list) else ""), data)
  fig.tight_layout()
  return fig


def torch_launch(plt, data):
  rows = [r for r in _field(data, "rows") if "median_us" in r]
  if not rows:
    raise ChartError("no way was measured")
  def colour(way):
    name = way.split("/")[-1]
    if name.startswith(("native", "ctypes", "tkrt")):
      return TKRT
    return FLOOR if name in ("raw", "c_floor") else ANCHOR
  fig, ax = plt.subplots(figsize=(9, 0.45 * len(rows) + 1.6))
  ys = list(range(len(rows)))[::-1]
  medians = [r["median_us"] for r in rows]
  errors = [[m - r.get("p10_us", m) for m, r in zip(medians, rows)],
            [r.get("p90_us", m) - m for m, r in zip(medians, rows)]]
  ax.barh(ys, medians, xerr=errors, color=[colour(r["way"]) for r in rows],
          capsize=3)
  for y, m in zip(ys, medians):
    ax.text(m, y, f" {m:.2f}", va="center", fontsize=7)
  ax.set_yticks(ys)
  ax.set_yticklabels([r.get("label", r["way"]) for r in rows], fontsize=7)
  ax.set_xlim(0, max(medians) * 1.25)
  ax.set_xlabel("host us per launch (median, p10-p90)")
  _title(ax, "Launching Triton kernels from PyTorch (kernel/way)", data)
  fig.tight_layout()
  return fig


CHARTS = {"launch_overhead": launch_overhead, "jax_calls": jax_calls,
          "jax_pipeline": jax_pipeline, "tuning": tuning, "tune_matmul": tune_matmul,
          "torch_launch": torch_launch}


def main(argv):
  if len(argv) < 3 or argv[1] in ("-h", "--help"):
    print(USAGE, file=sys.stderr if len(argv) < 3 else sys.stdout)
    return 2 if len(argv) < 3 else 0
  out_dir, files = argv[1], argv[2:]
  try:
    import matplotlib
    matplotlib.use("Agg")  # files only: no display on a GPU machine
    import matplotlib.pyplot as plt
  except ImportError as e:
    print(f"charts.py: matplotlib is not installed for {sys.executable} ({e}): install it "
          f"(pip install matplotlib, or apt-get install python3-matplotlib) to draw the charts; "
          f"the JSON files are unchanged", file=sys.stderr)
    return 2
  os.makedirs(out_dir, exist_ok=True)
  failed = 0
  drawn = {}
  for path in files:
    target = os.path.join(out_dir, os.path.splitext(os.path.basename(path))[0] + ".png")
    try:
      if target in drawn:
        raise ChartError(f"{drawn[target]} already drew {target}: give the files different names")
      with open(path, encoding="utf-8") as f:
        data = json.load(f)
      bench = data.get("bench") if isinstance(data, dict) else None
      if bench not in CHARTS:
        print(f"charts.py: {path}: no chart for bench {bench!r}: skipped")
        continue
      CHARTS[bench](plt, data).savefig(target, dpi=110)
      drawn[target] = path
      print(f"charts.py: {path} -> {target}")
    except (OSError, ValueError, ChartError) as e:
      print(f"charts.py: {path}: {e}", file=sys.stderr)
      failed += 1
    except (TypeError, KeyError, AttributeError) as e:  # a field of the wrong kind
      print(f"charts.py: {path}: unexpected content ({type(e).__name__}: {e})", file=sys.stderr)
      failed += 1
    finally:
      plt.close("all")
  return 1 if failed else 0


if __name__ == "__main__":
  sys.exit(main(sys.argv))
