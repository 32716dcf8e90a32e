// A shared library that is not a model library: it exports nothing the
// generator looks for.
extern "C" __attribute__((visibility("default"))) int not_a_model_library() { return 42; }
