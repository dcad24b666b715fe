#!/usr/bin/env python3
# Writes the board-power parameters of every hardware preset from the H200 fit
# (tools/fit-power/fit_h200_power.py; docs/model.md §13.4) by one rule:
#   GPUs whose per-FLOP energies follow the TDP-at-peak rule: idle = IDLE_SHARE x TDP (the H200's
#   measured 81.8 W of 700 W), pJ/FLOP at precision p = K x (TDP - idle) / dense peak at p (K =
#   the H200's fitted 1.031 pJ/FLOP over its (700 - 81.8) W / 989.5 TFLOPS), i.e. matrix work at
#   datasheet peak would draw K x (TDP - idle) above idle at the top clock;
#   and the on-die memory path per DRAM bit and the voltage-frequency curve of the fit, no busy
#   floor above idle (the fit's value).
# Only GPUs (HBM beside the die behind a PHY, a global L2 and crossbar, a measured V/f range):
# 3D stacks, wafer dies and the HD-MoE node keep their own sourced figures, no on-die path term
# (DRAM bytes land in the core's SRAM over the vertical link, whose energy is memory.vertical's)
# and the cubic law their papers use (dvfs_min_voltage = dvfs_min_clock). Rerun after a refit;
# never run by CI.
import json, os

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "presets", "hardware")
IDLE_SHARE = 81.8 / 700
K = 1.031 / ((700 - 81.8) / 989.5)
PATH = 14.42
V_MIN, S_MIN = 0.82, 345 / 1980
TOP = {"h100-sxm": 1980, "h200": 1980, "b200": 1965, "a100-sxm-40gb": 1410,
       "a100-sxm-80gb": 1410, "mi300x": 2100}
NOTE = ("energy (docs/model.md §13.4, tools/fit-power): idle static_power_W = %.1f %% of tdp_W "
        "(the H200's measured 81.8 W idle of 700 W), pJ_per_flop_p = %.3f x (tdp_W - "
        "static_power_W) / dense peak at p (the H200 fit's 1.031 pJ/FLOP bf16 at the top clock, "
        "i.e. dense matrix work at datasheet peak would draw %.2f x the TDP headroom: GPUs are "
        "power-capped near peak; fp32 uses the vector peak when there is no fp32 matrix path; a "
        "precision without a matrix unit repeats the value of the precision it falls back to); "
        "memory_path_pJ_per_bit %.2f (the H200 fit: PHY, controller, L2/crossbar and SM load path "
        "per DRAM bit, on top of the DRAM side's energy_pJ_per_bit); busy_power_W 0 (the fit's "
        "value); DVFS curve dvfs_min_clock %.3f (345 MHz idle clock / 1980 MHz top), "
        "dvfs_min_voltage %.2f (fitted); dvfs_top_clock_MHz the maximum SM clock nvidia-smi / "
        "rocm-smi reports.") % (100 * IDLE_SHARE, K, K, PATH, S_MIN, V_MIN)

# The presets' own sentences about their old idle figure, restated by the rule.
STATIC_NOTES = {
    "h200": ("static_power_W 100 as H100", "static_power_W: the idle board power measured on one "
             "H200 (81.8 W at 345 MHz, data/h200-measured)"),
    "h100-sxm": ("static_power_W 100: idle board power ~70 W (nvidia-smi at idle) plus leakage "
                 "growth at 60-80 C junction", "static_power_W: idle by the rule above (the same "
                 "GH100 die as the H200)"),
    "b200": ("static_power_W 150 (~15% of TDP, same share as H100's 100/700)",
             "static_power_W: idle by the rule above"),
    "mi300x": ("static_power_W 150 (20% of TBP: four large IODs and 256 MB SRAM leak more than a "
               "monolithic GPU)", "static_power_W: idle by the rule above (likely low for four "
               "IODs and 256 MB of Infinity Cache; no measurement to set it)"),
    "a100-sxm-40gb": ("static_power_W 60: idle ~50 W plus leakage at load temperature",
                      "static_power_W: idle by the rule above (A100 SXM idles near 50 W)"),
    "a100-sxm-80gb": ("static_power_W 60: idle ~50 W plus leakage at load temperature",
                      "static_power_W: idle by the rule above (A100 SXM idles near 50 W)"),
}

for name in sorted(os.listdir(ROOT)):
    path = os.path.join(ROOT, name)
    d = json.load(open(path))
    e = d.get("energy")
    if e is None or d.get("memory", {}).get("kind") == "sram_only":
        continue
    pid = name[:-5]
    if pid not in TOP:
        continue
    if pid in TOP:
        idle = round(IDLE_SHARE * e["tdp_W"], 1)
        factor = K * (e["tdp_W"] - idle) / (e["tdp_W"] - e["static_power_W"]) if "pJ_per_flop_fp16" in e and "rule" not in e else 1
        # Idempotent: the old values follow (tdp - static) / peak, so rescale from them once.
        if abs(e.get("static_power_W", 0) - idle) > 0.05:
            for k in ("pJ_per_flop_fp16", "pJ_per_flop_fp8", "pJ_per_flop_fp4", "pJ_per_flop_fp32"):
                e[k] = round(e[k] * factor, 4)
            e["static_power_W"] = idle
        e["dvfs_top_clock_MHz"] = TOP[pid]
    e["memory_path_pJ_per_bit"] = PATH
    e["busy_power_W"] = 0
    e["dvfs_min_clock"] = round(S_MIN, 3)
    e["dvfs_min_voltage"] = V_MIN
    order = ["pJ_per_flop_fp16", "pJ_per_flop_fp8", "pJ_per_flop_fp4", "pJ_per_flop_fp32",
             "sram_pJ_per_byte", "noc_pJ_per_bit_per_hop", "memory_path_pJ_per_bit",
             "static_power_W", "busy_power_W", "tdp_W", "dvfs_min_clock", "dvfs_min_voltage",
             "dvfs_top_clock_MHz"]
    d["energy"] = {k: e[k] for k in order if k in e}
    if pid in TOP:
        n = d["notes"]
        start = n.find("energy: pJ_per_flop_p = (tdp_W - static_power_W)")
        if start >= 0:
            end = n.find("(unused).", start)
            n = n[:start] + NOTE + n[end + len("(unused)."):]
        if pid in STATIC_NOTES:
            n = n.replace(*STATIC_NOTES[pid])
        d["notes"] = n
    with open(path, "w") as f:
        f.write(json.dumps(d, indent=2, ensure_ascii=False) + "\n")
    print(pid, d["energy"])
