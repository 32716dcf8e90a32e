# models.llm_weights_are_written_once: converts tinylm WITHOUT weight sharing
# and checks that the shared binary holds the weights once: at most 60% of
# the unshared one's size (each graph reads nearly every weight, so unshared
# is ~2x).
execute_process(COMMAND ${CONVERTER} -i ${PREFILL} -i ${DECODE} -o ${UNSHARED} RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "converting without weight sharing failed (${rc})")
endif()
file(SIZE ${SHARED} shared)
file(SIZE ${UNSHARED} unshared)
math(EXPR limit "${unshared} * 60 / 100")
message(STATUS "context binary: ${shared} bytes with weight sharing, ${unshared} without")
if(shared GREATER limit)
  message(FATAL_ERROR "with weight sharing the binary is ${shared} bytes, more than 60% of ${unshared} (unshared)")
endif()
