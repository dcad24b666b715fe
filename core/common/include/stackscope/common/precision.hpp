// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
#include <string_view>

namespace stackscope {

// Numeric formats for weights, activations and the KV cache.
enum class Precision { fp32, fp16, bf16, fp8, int8, fp4 };

// Storage size of one element in bytes (fp4 packs two per byte).
constexpr double bytes_per_element(Precision p) {
  switch (p) {
    case Precision::fp32: return 4.0;
    case Precision::fp16:
    case Precision::bf16: return 2.0;
    case Precision::fp8:
    case Precision::int8: return 1.0;
    case Precision::fp4: return 0.5;
  }
  return 2.0;
}

// The wider of two formats: a GEMM runs at the precision of its wider operand.
constexpr Precision wider(Precision a, Precision b) {
  return bytes_per_element(a) >= bytes_per_element(b) ? a : b;
}

constexpr std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
    case Precision::int8: return "int8";
    case Precision::fp4: return "fp4";
  }
  return "?";
}

}  // namespace stackscope
