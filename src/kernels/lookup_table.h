// Pointwise ops on 8- and 16-bit tensors as a lookup table.
//
// A unary pointwise op (Relu, ReluMinMax, Sigmoid, Tanh, Gelu, HardSwish,
// ElementWiseNeuron, ElementWiseUnary, Convert, Dequantize) whose input is
// UFIXED/SFIXED_POINT_8 with a per-tensor encoding has only 256 possible
// inputs; one whose input is FLOAT_16, or UFIXED/SFIXED_POINT_16 with a
// per-tensor encoding, 65536. At prepare, the reference kernel (through the
// type adapter) is run once on all of them and its outputs kept; run() is
// then one load per element. The table *is* the reference's answer, so the
// fast path matches the golden model bit for bit by construction.
//
// A 16-bit table is 128 KiB (for 2-byte outputs) and 65536 reference
// evaluations at prepare, so it is made only for tensors of at least
// kMin16BitTableElems elements; smaller ones keep the type adapter.
#pragma once

#include <pthreadpool.h>

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "ops/op.h"

namespace openhtp::kernels::lut {

inline constexpr size_t kMin16BitTableElems = size_t{16} << 10;

bool prepare_unary(const ops::NodeDesc& node, std::unique_ptr<ops::OpKernel>* kernel);

// A pointwise chain on one 8-bit per-tensor input (htp/fusion.h: SiLU's
// Sigmoid -> Multiply(x, sigmoid(x)), HardSwish written out, ...) as ONE
// table: every link is prepared on the reference (through the type adapter)
// with 256-element tensors and run in order on the 256 codes, each reading
// the chain's input or an earlier link's answers. The table is what the
// unfused nodes compute, code for code, so the fused step is bit-exact.
// Declines when a link does not prepare, when the input is not 8-bit
// per-tensor, or when the output is per-channel or wider than 4 bytes.
bool prepare_chain(std::span<const ops::ChainLink> chain, const ops::KernelEnv& env,
                   std::unique_ptr<ops::OpKernel>* kernel);

// The same chain's 256 answers when its output is 8-bit (htp/fusion.h,
// "producer table": a convolution applies them to its own output), or false.
bool chain_table(std::span<const ops::ChainLink> chain, std::vector<uint8_t>* table);

// y[i] = table[x[i]] for i < n (x == y allowed), with the AVX-512 VBMI
// permutes where the CPU has them.
void lookup_bytes(const uint8_t* table, const uint8_t* x, uint8_t* y, size_t n);
// y[i] = table[x[i]] for a 65536-entry table of 16-bit entries.
void lookup_halves(const uint16_t* table, const uint16_t* x, uint16_t* y, size_t n);
// The same in place over y, one share per pool thread from 16K elements on
// (the shares a multi-threaded producer wrote, parallel_tiles.h).
void lookup_bytes_in_shares(pthreadpool_t pool, const uint8_t* table, uint8_t* y, size_t n);

}  // namespace openhtp::kernels::lut
