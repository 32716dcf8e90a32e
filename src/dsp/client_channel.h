// The DSP end of the FastRPC channel: one per DSP process, since there is one
// DSP process per client. Receives the Hello, runs one thread per call slot
// and watches the control socket; when the client goes away the process ends.
#pragma once

#include <thread>
#include <memory>
#include <vector>

#include "dsp/mapping_table.h"
#include "dsp/module_table.h"
#include "ipc/call_protocol.h"
#include "ipc/shared_region.h"

namespace openhtp::dsp {

class ClientChannel {
 public:
  explicit ClientChannel(int control_fd) : control_fd_(control_fd) {}
  // Runs until the client disconnects; returns the process exit code.
  int run();

 private:
  struct Slot {
    int sock = -1;
    ipc::SharedRegion transport;
    // Scratch of the slot's thread, reused by every call: no allocation.
    std::vector<int> fds;
    std::vector<remote_arg> args;
    // The mappings of the call's by-reference arguments, held until it
    // returns: the client may rpcmem_free a buffer (and so ask for its
    // mapping to be released) while a call still reads or writes it.
    std::vector<std::shared_ptr<ipc::FdMapping>> pinned;
    ModuleTable::InvokeMemo invoke_memo;
    // A call's inline output, staged here and copied into the response line
    // with the result, just before the response word.
    alignas(8) uint8_t inline_out[ipc::kInlineOutBytes] = {};
  };
  int handshake();
  void slot_loop(int index);
  int serve_call(Slot& slot, ipc::SlotControl& ctl);
  int serve_short_call(Slot& slot, ipc::SlotControl& ctl);  // a FrameKind::kShort frame

  int control_fd_;
  ipc::SharedRegion doorbell_;
  ipc::DoorbellPage* page_ = nullptr;
  std::vector<Slot> slots_;
  MappingTable mappings_;
  ModuleTable modules_;
};

}  // namespace openhtp::dsp
