// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// The dies of a stacked_3d memory, uniform or described layer by layer (hw::Memory::layers,
// docs/model.md §4.8). Die k = 0 is bonded on the logic die. Pure functions; every one reduces to
// the uniform stack's value when Memory::layers is empty.
#include <vector>

#include "stackscope/hw/hardware.hpp"

namespace stackscope::hw {

// The thermal stack's DRAM die (thermal::StackParams::dram_thickness_m): a thinned die as in
// DeepStack's and HotSpot-3D's stacks.
inline constexpr double kDramDieThicknessUm = 50;

// Dies in one stack and dies with their own vertical link: the list's size and connected count
// when it is given, layers_total and layers_connected otherwise.
int stack_layer_count(const Memory& m) noexcept;
int stack_connected_count(const Memory& m) noexcept;
// Whether die k owns a vertical link: its flag, or k < layers_connected (uniform stack).
bool layer_connected(const Memory& m, int k) noexcept;
// The link (1-based, among the connected dies bottom-up) die k's channels use: its own, or for
// the j-th unconnected die (0-based, bottom-up) link j % connected + 1, which is the uniform
// stack's k % layers_connected rule.
int layer_link(const Memory& m, int k) noexcept;
// Die k's thickness, capacity per stack (the uniform value given) and link pitch.
double layer_thickness_um(const Memory& m, int k) noexcept;
double layer_capacity_GiB(const Memory& m, int k, double uniform_GiB) noexcept;
double layer_pitch_um(const Memory& m, int k) noexcept;
// True when the list sets no capacity (every die holds the uniform capacity), thickness or
// pitch other than the uniform one: the model then takes the uniform stack's path unchanged.
bool uniform_capacity(const Memory& m) noexcept;
bool uniform_thickness(const Memory& m) noexcept;
bool uniform_pitch(const Memory& m) noexcept;
// True when the connected dies are the bottom layers_connected ones (the uniform layout).
bool connected_at_bottom(const Memory& m) noexcept;
// Raw capacity of one stack in bytes: the sum over its dies, each die's capacity_GiB or
// `uniform_layer_bytes`.
double stack_raw_bytes(const Memory& m, double uniform_layer_bytes) noexcept;
// The uniform stack written out as a list of dies that take every uniform value (0s), the
// bottom layers_connected connected; the list itself when it is given.
std::vector<DramLayer> explicit_layers(const Memory& m);
// Sets layers_total and layers_connected from a non-empty list (what an edit of the list does).
void sync_layer_counts(Memory& m) noexcept;

}  // namespace stackscope::hw
