// The fast kernels this build links, in the order prepare_node() tries them.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ops/op.h"

namespace openhtp::kernels {

// Every fast path (XNNPACK and oneDNN). Each declines (returns false) the
// cases it does not cover, so the reference kernel runs for those.
std::span<const ops::FastPath> fast_paths();

// The fast paths a selection names, as OPENHTP_KERNELS and the tools'
// --kernels give it: "fast" or empty, all of them; "reference", none; or a
// comma-separated list of libraries to leave out, each with a leading '-'
// ("-onednn-winograd,-lookup-table"), all but those — to compare one library
// with what runs in its place. False, with the reason in *why, for anything
// else (an unknown library is an error, so a typo cannot go unnoticed).
bool select_fast_paths(std::string_view selection, std::vector<ops::FastPath>* out, std::string* why);

}  // namespace openhtp::kernels
