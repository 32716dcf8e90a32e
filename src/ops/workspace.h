// A kernel's scratch memory (OpKernel::workspace_bytes / set_workspace).
//
// Why: a kernel that owned buffers sized by its activations for the graph's
// life hid memory from the planner — every context of a graph paid for every
// node's copy at once. Declared instead, the scratch is planned like an
// intermediate alive for one node, so nodes share it with each other and with
// dead tensors, and it lands in VTCM or spill-fill where the plan says.
//
// A kernel keeps a Workspace of the size it declared and asks data() in
// run(). The runtime binds planned memory before the first run. A kernel
// driven directly (a unit test, a kernel benchmark) has nothing bound; data()
// then makes memory of the kernel's own on first use, so those callers need
// no plumbing — a PreparedGraph never takes that branch (tests/htp checks the
// pointer a kernel gets lies in the planned region).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace openhtp::ops {

// What the runtime aligns every workspace to (a cache line, as its tensors).
inline constexpr size_t kWorkspaceAlignment = 64;
inline constexpr size_t align_workspace(size_t bytes) {
  return (bytes + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment;
}

class Workspace {
 public:
  explicit Workspace(size_t bytes = 0) : bytes_(bytes) {}
  size_t bytes() const { return bytes_; }
  void bind(void* memory) {
    bound_ = static_cast<uint8_t*>(memory);
    if (bound_ != nullptr) own_.reset();
  }
  // bytes() of scratch (null when 0): the bound memory, else the kernel's own.
  uint8_t* data() {
    if (bound_ == nullptr && bytes_ > 0) {
      own_.reset(static_cast<uint8_t*>(::operator new(bytes_, std::align_val_t{kWorkspaceAlignment})));
      bound_ = own_.get();
    }
    return bound_;
  }
  // What data() would give when memory was bound or data() was asked
  // before; else null (the kernel's own, not yet made: no other kernel's).
  const uint8_t* current() const { return bound_; }

 private:
  struct Free {
    void operator()(uint8_t* p) const { ::operator delete(p, std::align_val_t{kWorkspaceAlignment}); }
  };
  size_t bytes_ = 0;
  uint8_t* bound_ = nullptr;
  std::unique_ptr<uint8_t, Free> own_;  // only when nothing was bound
};

}  // namespace openhtp::ops
