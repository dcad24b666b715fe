#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes the HotSpot inputs of the 3D reference cases, runs HotSpot on them and keeps its
outputs as CSV (see README.md). Usage: make_cases.py HOTSPOT_BINARY OUT_DIR"""
import os
import shutil
import subprocess
import sys

# HotSpot 7 defaults (hotspot.config of uvahotspot/HotSpot f18831e), stated explicitly.
CONFIG = """# HotSpot 7 defaults (uvahotspot/HotSpot f18831e hotspot.config) for the package; grid model
-t_chip 0.00015
-k_chip 100.0
-p_chip 1.75e6
-thermal_threshold 354.95
-c_convec 140.4
-r_convec 0.1
-s_sink 0.06
-t_sink 0.0069
-k_sink 400.0
-p_sink 3.55e6
-s_spreader 0.03
-t_spreader 0.001
-k_spreader 400.0
-p_spreader 3.55e6
-t_interface 2.0e-05
-k_interface 4.0
-p_interface 4.0e6
-model_secondary 0
-ambient 318.15
-init_temp 318.15
-sampling_intvl 3.333e-06
-base_proc_freq 3e+09
-dtm_used 0
-leakage_used 0
-leakage_mode 0
-package_model_used 0
-model_type grid
-block_omit_lateral 0
-grid_rows 64
-grid_cols 64
-grid_map_mode center
"""

# Materials as core/thermal/compact.hpp StackParams: silicon 130 W/mK, BEOL + hybrid bond 10 um
# at 2.25 W/mK, thinned DRAM 50 um, TIM 20 um at 4 W/mK.
K_SI, K_BOND, K_TIM = 130.0, 2.25, 4.0
C_SI, C_BOND, C_TIM = 1.75e6, 2.175e6, 4.0e6


def flp(blocks):
    lines = ["# name\twidth(m)\theight(m)\tleft-x(m)\tbottom-y(m)"]
    for name, w, h, x, y in blocks:
        lines.append(f"{name}\t{w:.6e}\t{h:.6e}\t{x:.6e}\t{y:.6e}")
    return "\n".join(lines) + "\n"


def write_case(out, name, width, height, logic_blocks, logic_power, dram_layers, dram_power,
               package=None):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    config = CONFIG
    for key, value in (package or {}).items():
        lines = [l for l in config.splitlines() if not l.startswith(f"-{key} ")]
        config = "\n".join(lines + [f"-{key} {value}"]) + "\n"
    with open(os.path.join(d, "hotspot.config"), "w") as f:
        f.write(config)
    with open(os.path.join(d, "logic.flp"), "w") as f:
        f.write(flp(logic_blocks))
    with open(os.path.join(d, "passive.flp"), "w") as f:
        f.write(flp([("P", width, height, 0.0, 0.0)]))
    layers = [("logic silicon", True, C_SI, K_SI, 100e-6, "logic.flp")]
    names, powers = [b[0] for b in logic_blocks], list(logic_power)
    for i in range(1, dram_layers + 1):
        layers.append((f"bond {i}", False, C_BOND, K_BOND, 10e-6, "passive.flp"))
        fn = f"dram{i}.flp"
        with open(os.path.join(d, fn), "w") as f:
            f.write(flp([(f"D{i}", width, height, 0.0, 0.0)]))
        layers.append((f"dram {i}", True, C_SI, K_SI, 50e-6, fn))
        names.append(f"D{i}")
        powers.append(dram_power)
    layers.append(("TIM", False, C_TIM, K_TIM, 20e-6, "passive.flp"))
    with open(os.path.join(d, "stack.lcf"), "w") as f:
        f.write(f"# {name}: layer 0 farthest from the sink; HotSpot appends spreader and sink\n")
        for i, (label, power, c, k, t, fp) in enumerate(layers):
            f.write(f"\n# Layer {i}: {label}\n{i}\nY\n{'Y' if power else 'N'}\n{c:g}\n"
                    f"{1.0 / k:.10g}\n{t:g}\n{fp}\n")
    with open(os.path.join(d, "stack.ptrace"), "w") as f:
        f.write("\t".join(names) + "\n" + "\t".join(f"{p:.6f}" for p in powers) + "\n")
    return d, layers


def run(hotspot, d, layers, rows=64, cols=64):
    cmd = [hotspot, "-c", "hotspot.config", "-p", "stack.ptrace", "-grid_layer_file", "stack.lcf",
           "-model_type", "grid", "-steady_file", "out.steady", "-grid_steady_file",
           "out.grid.steady", "-d", "effective.config"]
    subprocess.run(cmd, cwd=d, check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(d, "command.txt"), "w") as f:
        f.write(" ".join(["hotspot"] + cmd[1:]) + "\n")
    grid, n = {}, None
    for line in open(os.path.join(d, "out.grid.steady")):
        if line.startswith("Layer"):
            n = int(line.split()[1].rstrip(":"))
            grid[n] = []
        elif line.strip():
            grid[n].append(float(line.split()[1]) - 273.15)
    labels = [l[0] for l in layers] + ["heat spreader (under die)", "heat sink (under die)"]
    with open(os.path.join(d, "layers.csv"), "w") as f:
        f.write(f"# HotSpot grid layer, label, max_C, mean_C, min_C over its {rows}x{cols} cells\n")
        for i in sorted(grid):
            v = grid[i]
            f.write(f"{i},{labels[i]},{max(v):.2f},{sum(v) / len(v):.4f},{min(v):.2f}\n")
    power_layers = [i for i, l in enumerate(layers) if l[1]]
    for i in (power_layers[0], power_layers[-1]):
        with open(os.path.join(d, f"grid_layer{i}_C.csv"), "w") as f:
            f.write(f"# HotSpot grid layer {i} ({labels[i]}) steady temperatures in deg C; {rows}x{cols},"
                    " row 0 = max-y edge (HotSpot row order), col 0 = min-x edge\n")
            for r in range(rows):
                f.write(",".join(f"{x:.2f}" for x in grid[i][r * cols:(r + 1) * cols]) + "\n")
    os.remove(os.path.join(d, "out.grid.steady"))


def main():
    hotspot, out = sys.argv[1], sys.argv[2]
    # Case 1: 10 mm die (the public case's size), an off-centre 4 x 4 power map (62 W, hottest
    # block at x = 5..7.5 mm, y = 0..2.5 mm) under 4 DRAM dies of 2 W each.
    q = 2.5e-3
    blocks = [(f"L_{r}_{c}", q, q, c * q, r * q) for r in range(4) for c in range(4)]
    p = [2.0] * 16
    p[2], p[1], p[6], p[3], p[7], p[11] = 16.0, 8.0, 8.0, 4.0, 4.0, 2.0
    d, layers = write_case(out, "dram4-offcentre-10mm", 0.01, 0.01, blocks, p, 4, 2.0)
    run(hotspot, d, layers)
    # Case 2: 20 mm die like fit_compact_model's stack: 200 W logic, 80 % in the central core
    # (16 x 16 mm), 20 % spread over the 2 mm I/O ring by area, under 8 DRAM dies of 3 W each.
    W, rw = 0.02, 0.002
    blocks = [("core", W - 2 * rw, W - 2 * rw, rw, rw), ("io_south", W, rw, 0.0, 0.0),
              ("io_north", W, rw, 0.0, W - rw), ("io_west", rw, W - 2 * rw, 0.0, rw),
              ("io_east", rw, W - 2 * rw, W - rw, rw)]
    ring = W * W - (W - 2 * rw) ** 2
    p = [160.0] + [40.0 * b[1] * b[2] / ring for b in blocks[1:]]
    d, layers = write_case(out, "dram8-core-20mm", W, W, blocks, p, 8, 3.0)
    run(hotspot, d, layers)
    # Case 3: a rectangular 24 x 12 mm die under 12 DRAM dies of 1.5 W and a package other than
    # the default: 40 mm, 2 mm copper spreader; 70 mm, 5 mm aluminium sink (k 237 W/mK,
    # c 2.42e6 J/m3K); r_convec 0.2 K/W. A 32 x 64 grid keeps the cells square: HotSpot's
    # steady grid solver couples cells in neighbouring rows through rx (cw / (k.ch.t), the
    # resistance along x; temperature_grid.c find_res) and neighbouring columns through ry, which
    # is exact only for square cells (README.md). Logic: 120 W, a 3 x 6 map of 4 mm blocks rising from
    # 2 W (west) to 12 W (east) with a 15 W block at the north-east corner.
    b = 4e-3
    blocks = [(f"B_{r}_{c}", b, b, c * b, r * b) for r in range(3) for c in range(6)]
    p = [2.0 + 2.0 * c for r in range(3) for c in range(6)]
    p[17] = 15.0
    scale = 120.0 / sum(p)
    p = [x * scale for x in p]
    pkg = {"s_spreader": 0.04, "t_spreader": 0.002, "s_sink": 0.07, "t_sink": 0.005,
           "k_sink": 237.0, "p_sink": 2.42e6, "r_convec": 0.2, "grid_rows": 32}
    d, layers = write_case(out, "dram12-rect-alu-sink", 0.024, 0.012, blocks, p, 12, 1.5, pkg)
    run(hotspot, d, layers, rows=32, cols=64)


if __name__ == "__main__":
    main()
