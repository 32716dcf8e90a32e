// The inference loop of qnn-net-run: each graph's input list resolved to
// files (checked against the graph's inputs and their sizes before anything
// runs), then one execute per list line (repeated for --num_inferences /
// --duration), the outputs written to Result_<n> folders.
#pragma once

#include <cstdint>
#include <string>

#include "config_file.h"
#include "options.h"
#include "profiling.h"
#include "session.h"

namespace openhtp::netrun {

struct RunSummary {
  uint64_t inferences = 0;  // input-list lines run, over all graphs
  uint64_t executes = 0;    // graphExecute calls (inferences x --batch_multiplier)
  uint64_t results_written = 0;
  double seconds = 0;
  bool have_copy_stats = false;  // the backend reports copy accounting (openhtp)
  uint64_t bytes_copied_in = 0, bytes_copied_out = 0, bytes_by_reference = 0;
  bool shared_buffer = false;
  uint64_t memhandle_tensors = 0;  // graph I/O tensors passed as registered memory handles
};

// False + *error naming the file, line, tensor or QNN call that failed.
bool run_inferences(const Options& opt, const ConfigFile& config, Session* session, Profiler* profiler,
                    RunSummary* summary, std::string* error);

}  // namespace openhtp::netrun
