// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// SI is used inside the core (s, B, FLOP, W, J, m, K). Config structs keep the unit in the
// field name (clock_GHz, bw_GBps); these constants convert at the point of use.
namespace stackscope::units {
inline constexpr double kKilo = 1e3;
inline constexpr double kMega = 1e6;
inline constexpr double kGiga = 1e9;
inline constexpr double kTera = 1e12;
inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kNano = 1e-9;
inline constexpr double kMicro = 1e-6;
inline constexpr double kPico = 1e-12;
inline constexpr double kBitsPerByte = 8.0;
}  // namespace stackscope::units
