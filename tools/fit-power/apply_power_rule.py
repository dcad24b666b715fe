#!/usr/bin/env python3
# Writes the board-power parameters of every hardware preset from the H200 fit
# (tools/fit-power/fit_h200_power.py; docs/model.md §13.4) by one rule:
#   GPUs whose per-FLOP energies follow the TDP-at-peak rule: idle = IDLE_SHARE x TDP (the H200's
#   measured 81.8 W of 700 W), pJ/FLOP at precision p = K x (TDP - idle) / dense peak at p (K =
#   the H200's fitted 1.031 pJ/FLOP over its (700 - 81.8) W / 989.5 TFLOPS), i.e. matrix work at
#   datasheet peak would draw K x (TDP - idle) above idle at the top clock;
#   and the on-die memory path per DRAM bit and the voltage-frequency curve of the fit, no busy
#   floor above idle (the fit's value).
# Logic dies that are not GPUs (3D stacks, the HD-MoE node, wafer dies; docs/model.md §13.4) take
# the same idle share, busy floor and voltage-frequency curve, keep their own per-FLOP figures,
# and take the fit's memory path less the parts they lack: a die with DRAM bonded above its cores
# has no HBM PHY (the vertical link's energy is memory.vertical's), no L2 (DRAM bytes land in the
# core's SRAM) and a round trip across one core tile instead of the GPU's PHY-to-SM route; an
# SRAM-only die has no path at all. deepstack-paper keeps the DeepStack paper's figures and its
# cubic power wall. Usage: apply_power_rule.py [PRESETS_HARDWARE_DIR]. Rerun after a refit;
# never run by CI.
import json, math, os, sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "presets", "hardware")
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

# The fit's path per DRAM bit, split by what a non-GPU die lacks (pJ/bit, top clock and voltage):
PHY = 0.30  # logic-side HBM PHY: HBM2's I/O share 0.30 (O'Connor et al., MICRO 2017), a 4 nm HBM3
#            interface 0.29 ("A 4-nm 1.15 TB/s HBM3 Interface ...", IEEE JSSC 59(1), 2024)
L2 = 2 * 0.095  # an L2 write and read: 50 + 0.022 sqrt(S) fJ/bit for an S-bit array (Dally, Turakhia
#                 and Han, CACM 63(7), 2020) for an assumed 512 KiB slice
WIRE = 0.1  # on-die wire, pJ/bit/mm (Dally, Stanford AHA retreat 2023: ~100 fJ/b-mm; Keckler et
#             al., IEEE Micro 31(5), 2011: 121 fJ/b-mm at 40 nm)
GPU_TRIP_MM = 48  # PHY to SM and back on a GPU die (Dally 2023: "48mm round trip on GPU die")
KEPT = PATH - PHY - L2 - WIRE * GPU_TRIP_MM  # memory controllers and the core's load path


def stacked_path(compute):
    """A DRAM-on-logic die: the kept part plus a round trip across one core tile."""
    return round(KEPT + WIRE * 2 * math.sqrt(compute["area_per_core_mm2"]), 2)


# Non-GPU logic dies by their memory: stacked (DRAM above the cores) or sram (no DRAM).
LOGIC = {"deepstack-3d": "stacked", "hdmoe-node": "stacked", "wafer-scale": "sram"}
LOGIC_NOTE = ("energy rule (docs/model.md §13.4, tools/fit-power/apply_power_rule.py): "
              "static_power_W = %.1f %% of tdp_W, busy_power_W 0 and the DVFS curve "
              "dvfs_min_clock %.3f / dvfs_min_voltage %.2f as the H200 fit (FinFET logic as the "
              "GH100: its voltage has a floor near 0.5 V, so V ~ f, the cubic law, overstates what "
              "a lower clock saves)") % (100 * IDLE_SHARE, S_MIN, V_MIN)
PATH_NOTE = ("; memory_path_pJ_per_bit %.2f = the H200 fit's %.2f less the HBM PHY (%.2f), the L2 "
             "write and read (%.2f) and the GPU's %d mm PHY-to-SM round trip at %.1f pJ/bit/mm, "
             "plus a round trip across one core tile (2 x sqrt(area_per_core_mm2) mm): the "
             "memory controllers and the core's load path (%.2f) are kept.")
SRAM_NOTE = ("; no DRAM, so memory_path_pJ_per_bit does not apply (0); pJ_per_flop by the "
             "preset's own rule (tdp_W - static_power_W) / peak.")
# The presets' own sentences about their old idle figure, restated.
LOGIC_NOTES = {
    "deepstack-3d": [("+ static 40 W (10%: logic leakage plus refresh of 96 GiB).",
                      "+ static (logic leakage plus refresh of 96 GiB, by the rule below); the "
                      "memory path (below) adds 6.55 TB/s x 8 x 9.48 pJ = 497 W at the DRAM peak, "
                      "so DRAM-bound phases run power-capped or thermally throttled.")],
    "hdmoe-node": [("+ static 2 W, rounded up.",
                    "+ static 2 W, rounded up, before the memory path (below), which adds 625 GB/s "
                    "x 8 x 9.62 pJ = 48 W at the DRAM peak, so DRAM-bound phases run power-capped; "
                    "static_power_W is 2.3 by the rule below.")],
    "wafer-scale": [("(15000 - 1500) W / 125 PFLOPS = 0.108 pJ (fp8/fp4 repeat it; fp32 over the "
                     "31.2 PFLOPS vector peak = 0.432)",
                     "(15000 - 1752.9) W / 125 PFLOPS = 0.106 pJ (fp8/fp4 repeat it; fp32 over the "
                     "31.2 PFLOPS vector peak = 0.424)"),
                    ("static 10% of it.", "static by the rule below.")],
}

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
    pid = name[:-5]
    if e is None or (pid not in TOP and pid not in LOGIC):
        continue
    idle = round(IDLE_SHARE * e["tdp_W"], 1)
    if pid in TOP:
        factor = K * (e["tdp_W"] - idle) / (e["tdp_W"] - e["static_power_W"]) if "pJ_per_flop_fp16" in e and "rule" not in e else 1
        # Idempotent: the old values follow (tdp - static) / peak, so rescale from them once.
        if abs(e.get("static_power_W", 0) - idle) > 0.05:
            for k in ("pJ_per_flop_fp16", "pJ_per_flop_fp8", "pJ_per_flop_fp4", "pJ_per_flop_fp32"):
                e[k] = round(e[k] * factor, 4)
            e["static_power_W"] = idle
        e["dvfs_top_clock_MHz"] = TOP[pid]
        e["memory_path_pJ_per_bit"] = PATH
    else:
        c = d["compute"]
        if LOGIC[pid] == "sram":
            # Its own rule, pJ/FLOP = (tdp - static) / peak, at the new idle figure.
            peak = c["cores"] * c["clock_GHz"] * 1e9
            head = e["tdp_W"] - idle
            for k in ("pJ_per_flop_fp16", "pJ_per_flop_fp8", "pJ_per_flop_fp4"):
                e[k] = round(head / (peak * c["matrix_flops_per_cycle_fp16"]) * 1e12, 3)
            e["pJ_per_flop_fp32"] = round(head / (peak * c["vector_flops_per_cycle"]) * 1e12, 3)
            e["memory_path_pJ_per_bit"] = 0
        else:
            e["memory_path_pJ_per_bit"] = stacked_path(c)
        e["static_power_W"] = idle
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
    else:
        n = d["notes"]
        for old, new in LOGIC_NOTES[pid]:
            n = n.replace(old, new)
        # The rule's sentence closes the notes; it is restated from the current constants.
        rule = n.find(" energy rule (docs/model.md")
        n = n if rule < 0 else n[:rule]
        tail = SRAM_NOTE if LOGIC[pid] == "sram" else PATH_NOTE % (
            e["memory_path_pJ_per_bit"], PATH, PHY, L2, GPU_TRIP_MM, WIRE, KEPT)
        d["notes"] = n.rstrip() + " " + LOGIC_NOTE + tail
    with open(path, "w") as f:
        f.write(json.dumps(d, indent=2, ensure_ascii=False) + "\n")
    print(pid, d["energy"])
