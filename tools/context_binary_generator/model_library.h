// The model-library interface: what `qnn-context-binary-generator --model
// lib<name>.so` (and qnn-net-run) expect a model library to export.
//
// A model library is a shared object that builds one or more graphs in a
// context it is handed, calling the backend only through the function table
// it receives. It exports two C functions whose names start with a prefix
// ("QnnModel" unless the tool is given --model_prefix):
//
//   <prefix>_composeGraphs   creates the graphs and returns their GraphInfo_t
//   <prefix>_freeGraphsInfo  releases what composeGraphs returned
//
// The caller (not the library) finalizes every returned graph.
//
// Declared here from the interface description only: type layouts, the
// ModelError_t codes and the argument order are what existing model
// libraries are built against, so they must not change.
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "QnnInterface.h"
#include "QnnLog.h"
#include "QnnTypes.h"

#ifdef __cplusplus
extern "C" {
#endif

// Result of both entry points.
typedef enum ModelError {
  MODEL_NO_ERROR = 0,
  MODEL_TENSOR_ERROR = 1,
  MODEL_PARAMS_ERROR = 2,
  MODEL_NODES_ERROR = 3,
  MODEL_GRAPH_ERROR = 4,
  MODEL_CONTEXT_ERROR = 5,
  MODEL_GENERATION_ERROR = 6,
  MODEL_SETUP_ERROR = 7,
  MODEL_INVALID_ARGUMENT_ERROR = 8,
  MODEL_FILE_ERROR = 9,
  MODEL_MEMORY_ALLOCATE_ERROR = 10,
  MODEL_UNKNOWN_ERROR = 0x7FFFFFFF
} ModelError_t;

// One graph the library created: its handle, its name and its I/O tensors
// (owned by the library until <prefix>_freeGraphsInfo).
typedef struct GraphInfo {
  Qnn_GraphHandle_t graph;
  char* graphName;
  Qnn_Tensor_t* inputTensors;
  uint32_t numInputTensors;
  Qnn_Tensor_t* outputTensors;
  uint32_t numOutputTensors;
} GraphInfo_t;
typedef GraphInfo_t* GraphInfoPtr_t;

// Graph configs the caller asks for, matched to graphs by name.
typedef struct GraphConfigInfo {
  char* graphName;
  const QnnGraph_Config_t** graphConfigs;
} GraphConfigInfo_t;

// <prefix>_composeGraphs(backend, table (by value), context, graph configs,
// number of graph configs, out graph infos, out number of graphs, debug,
// log callback, log level).
typedef ModelError_t (*ComposeGraphsFnHandleType_t)(Qnn_BackendHandle_t, QNN_INTERFACE_VER_TYPE, Qnn_ContextHandle_t,
                                                    const GraphConfigInfo_t**, const uint32_t, GraphInfo_t***,
                                                    uint32_t*, bool, QnnLog_Callback_t, QnnLog_Level_t);

// <prefix>_freeGraphsInfo(graph infos, number of graphs).
typedef ModelError_t (*FreeGraphInfoFnHandleType_t)(GraphInfo_t***, uint32_t);

#ifdef __cplusplus
}
#endif

#ifdef __cplusplus
// The enumerator's name ("MODEL_GRAPH_ERROR"), or "unknown ModelError_t".
inline const char* model_error_name(ModelError_t e) {
  switch (e) {
    case MODEL_NO_ERROR: return "MODEL_NO_ERROR";
    case MODEL_TENSOR_ERROR: return "MODEL_TENSOR_ERROR";
    case MODEL_PARAMS_ERROR: return "MODEL_PARAMS_ERROR";
    case MODEL_NODES_ERROR: return "MODEL_NODES_ERROR";
    case MODEL_GRAPH_ERROR: return "MODEL_GRAPH_ERROR";
    case MODEL_CONTEXT_ERROR: return "MODEL_CONTEXT_ERROR";
    case MODEL_GENERATION_ERROR: return "MODEL_GENERATION_ERROR";
    case MODEL_SETUP_ERROR: return "MODEL_SETUP_ERROR";
    case MODEL_INVALID_ARGUMENT_ERROR: return "MODEL_INVALID_ARGUMENT_ERROR";
    case MODEL_FILE_ERROR: return "MODEL_FILE_ERROR";
    case MODEL_MEMORY_ALLOCATE_ERROR: return "MODEL_MEMORY_ALLOCATE_ERROR";
    case MODEL_UNKNOWN_ERROR: return "MODEL_UNKNOWN_ERROR";
  }
  return "unknown ModelError_t";
}
#endif
