// A graph on several threads runs its steps in thread teams (threads/team.h):
// stretches of steps that split work only through the graph's pool share one
// OpenMP region (from the second execute on, once the first showed which
// steps split, and where two or more in the stretch do); a step that opens
// regions itself (a oneDNN convolution planned for several threads) runs
// between teams. What must hold: the
// outputs are those of one thread; each op boundary is asked about once, in
// order, whether it is inside a team or between two; a yield happens outside
// any region (nothing waits on a core while the graph is paused); a stop at
// a boundary inside a team ends the execute there; steps whose shares line
// up (htp/share_chain.h) run with no barrier between them and still give one
// thread's outputs.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "htp/prepared_graph.h"
#include "htp/share_chain.h"
#include "kernels/fast_paths.h"
#include "threads/team.h"

namespace openhtp {
namespace {

namespace tt = htp::tensor_type;
constexpr uint32_t kF32 = ops::dtype::kFloat32;

ops::Param u32_tensor(const char* name, std::vector<uint32_t> v) {
  ops::Param p;
  p.name = name;
  p.is_tensor = true;
  p.dtype = ops::dtype::kUint32;
  p.dims = {static_cast<uint32_t>(v.size() == 4 ? 2 : v.size())};
  if (v.size() == 4) p.dims.push_back(2);
  p.data.resize(v.size() * 4);
  std::memcpy(p.data.data(), v.data(), p.data.size());
  return p;
}

struct Graph {
  htp::GraphSpec g;
  std::mt19937 rng{11};
  uint32_t tensor(uint32_t type, std::vector<uint32_t> dims, bool random_static = false) {
    htp::TensorSpec t;
    t.id = static_cast<uint32_t>(g.tensors.size() + 1);
    t.name = "t" + std::to_string(t.id);
    t.type = type;
    t.dtype = kF32;
    t.dims = std::move(dims);
    if (random_static) {
      std::uniform_real_distribution<float> d(-0.2f, 0.2f);
      std::vector<uint8_t> bytes(t.num_bytes());
      for (size_t i = 0; i < bytes.size(); i += 4) {
        const float v = d(rng);
        std::memcpy(&bytes[i], &v, 4);
      }
      t.static_data = std::move(bytes);
    }
    g.tensors.push_back(std::move(t));
    return g.tensors.back().id;
  }
  // 3x3 convolution, pad 1, of `in` [1,h,w,c] to c channels at `stride`.
  uint32_t conv(const std::string& name, uint32_t in, uint32_t h, uint32_t c, uint32_t stride, uint32_t out_type) {
    const uint32_t w = tensor(tt::kStatic, {3, 3, c, c}, true);
    const uint32_t b = tensor(tt::kStatic, {c}, true);
    const uint32_t ho = (h + 2 - 3) / stride + 1;
    const uint32_t out = tensor(out_type, {1, ho, ho, c});
    g.nodes.push_back({name, "", "Conv2d",
                       {u32_tensor("stride", {stride, stride}), u32_tensor("pad_amount", {1, 1, 1, 1})},
                       {in, w, b},
                       {out}});
    return out;
  }
  // 1x1 convolution of `in` [1,h,h,cin] to cout channels, then a Relu
  // (fused into it) when `relu`.
  uint32_t pointwise(const std::string& name, uint32_t in, uint32_t h, uint32_t cin, uint32_t cout, bool relu_after,
                     uint32_t out_type = tt::kNative) {
    const uint32_t w = tensor(tt::kStatic, {1, 1, cin, cout}, true);
    const uint32_t b = tensor(tt::kStatic, {cout}, true);
    const uint32_t out = tensor(relu_after ? tt::kNative : out_type, {1, h, h, cout});
    g.nodes.push_back({name, "", "Conv2d",
                       {u32_tensor("stride", {1, 1}), u32_tensor("pad_amount", {0, 0, 0, 0})},
                       {in, w, b},
                       {out}});
    return relu_after ? relu(name + "_relu", out, {1, h, h, cout}, out_type) : out;
  }
  // 3x3 depthwise convolution, pad 1, stride 1, then a Relu.
  uint32_t depthwise(const std::string& name, uint32_t in, uint32_t h, uint32_t c) {
    const uint32_t w = tensor(tt::kStatic, {3, 3, 1, c}, true);
    const uint32_t b = tensor(tt::kStatic, {c}, true);
    const uint32_t out = tensor(tt::kNative, {1, h, h, c});
    g.nodes.push_back({name, "", "DepthWiseConv2d",
                       {u32_tensor("stride", {1, 1}), u32_tensor("pad_amount", {1, 1, 1, 1})},
                       {in, w, b},
                       {out}});
    return relu(name + "_relu", out, {1, h, h, c});
  }
  uint32_t add(const std::string& name, uint32_t a, uint32_t b, std::vector<uint32_t> dims) {
    const uint32_t out = tensor(tt::kNative, std::move(dims));
    g.nodes.push_back({name, "", "ElementWiseAdd", {}, {a, b}, {out}});
    return out;
  }
  uint32_t relu(const std::string& name, uint32_t in, std::vector<uint32_t> dims, uint32_t out_type = tt::kNative) {
    const uint32_t out = tensor(out_type, std::move(dims));
    g.nodes.push_back({name, "", "Relu", {}, {in}, {out}});
    return out;
  }
};

// in [1,128,128,32] -> relu_0 -> relu_1 (524K elements each: split over the
// pool, one team) -> conv_a 3x3 s2 (38M multiply-adds: oneDNN's own split,
// between teams) -> conv_b, conv_c 3x3 s1 on 64x64 (Winograd slabs of 32
// rows where the CPU has Winograd kernels: a second team) -> relu_d -> out.
// Each conv's Relu fuses into it.
Graph mixed_graph() {
  Graph m;
  const uint32_t x = m.tensor(tt::kAppWrite, {1, 128, 128, 32});
  uint32_t t = m.relu("relu_0", x, {1, 128, 128, 32});
  t = m.relu("relu_1", t, {1, 128, 128, 32});
  t = m.conv("conv_a", t, 128, 32, 2, tt::kNative);
  t = m.relu("relu_a", t, {1, 64, 64, 32});
  t = m.conv("conv_b", t, 64, 32, 1, tt::kNative);
  t = m.relu("relu_b", t, {1, 64, 64, 32});
  t = m.conv("conv_c", t, 64, 32, 1, tt::kNative);
  t = m.relu("relu_c", t, {1, 64, 64, 32});
  m.relu("relu_d", t, {1, 64, 64, 32}, tt::kAppRead);
  return m;
}

// Records every boundary it is asked about and whether a region was active.
struct Recorder final : htp::YieldPoint {
  int stops = 0, wanteds = 0;
  int yield_at_call = -1;  // the wanted() call (1-based) that says yes
  int stop_at_call = -1;   // the stop() call (1-based) that stops
  std::vector<bool> in_region;  // per boundary, at stop()
  std::vector<size_t> yielded_before;
  bool yield_in_region = false;
  htp::GraphError stop() override {
    in_region.push_back(omp_in_parallel() != 0);
    return ++stops == stop_at_call ? htp::GraphError::kAborted : htp::GraphError::kNone;
  }
  bool wanted() override { return ++wanteds == yield_at_call; }
  void yield(const htp::PreparedGraph&, size_t next_step) override {
    yielded_before.push_back(next_step);
    yield_in_region = yield_in_region || omp_in_parallel() != 0;
  }
};

struct GraphRun {
  std::vector<float> out;
  std::vector<std::vector<float>> earlier;  // the outputs of the executes between the first and the last
  htp::GraphError error = htp::GraphError::kNone;
  std::string message;
  std::vector<htp::PreparedGraph::NodeProfile> profile;
};

// `executes` executes (the first learns which steps split: no teams yet);
// the last is the one looked at, with its yield point and, when `profiled`,
// per-node profiling (chained steps, htp/share_chain.h, run only without).
GraphRun run(const htp::GraphSpec& spec, size_t threads, htp::YieldPoint* yp, int executes = 2,
             bool profiled = true) {
  htp::PlanOptions opt;
  opt.fast_paths = kernels::fast_paths();
  htp::GraphSpec s = spec;
  s.num_hvx_threads = static_cast<uint32_t>(threads);
  htp::GraphError err;
  GraphRun r;
  auto g = htp::PreparedGraph::create(std::move(s), opt, &err, &r.message);
  EXPECT_TRUE(g) << r.message;
  if (!g) return r;
  EXPECT_EQ(g->num_threads(), threads);
  const htp::TensorSpec* in = g->spec().find_tensor(g->input_ids()[0]);
  std::vector<float> x(in->num_bytes() / 4);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (float& v : x) v = d(rng);
  r.out.resize(g->spec().find_tensor(g->output_ids()[0])->num_bytes() / 4);
  const htp::TensorBinding ins[] = {{in->id, x.data(), x.size() * 4}};
  const htp::TensorBinding outs[] = {{g->output_ids()[0], r.out.data(), r.out.size() * 4}};
  std::vector<uint8_t> vtcm(8 << 20), spill(64 << 20);
  const htp::MemoryRegions regions{vtcm.data(), vtcm.size(), spill.data(), spill.size()};
  for (int i = 1; i < executes; ++i) {
    std::fill(r.out.begin(), r.out.end(), std::nanf(""));
    EXPECT_EQ(g->execute_serialized(ins, outs, regions, &r.message, nullptr), htp::GraphError::kNone) << r.message;
    if (i > 1) r.earlier.push_back(r.out);  // the executes after the learning one
  }
  g->set_node_profiling(profiled);
  std::fill(r.out.begin(), r.out.end(), std::nanf(""));
  r.error = g->execute_serialized(ins, outs, regions, &r.message, yp);
  r.profile = g->node_profile();
  return r;
}

TEST(ThreadTeamGraph, OutputsOfOneThreadAndEachBoundaryAskedOnce) {
  const Graph m = mixed_graph();
  Recorder one_rec, two_rec;
  const GraphRun one = run(m.g, 1, &one_rec);
  const GraphRun two = run(m.g, 2, &two_rec);
  ASSERT_EQ(one.error, htp::GraphError::kNone) << one.message;
  ASSERT_EQ(two.error, htp::GraphError::kNone) << two.message;
  ASSERT_EQ(one.out.size(), two.out.size());
  for (size_t i = 0; i < one.out.size(); ++i) {
    ASSERT_NEAR(one.out[i], two.out[i], 1e-4f * (1.0f + std::fabs(one.out[i]))) << i;
  }
  const int boundaries = static_cast<int>(two.profile.size()) - 1;
  EXPECT_EQ(two_rec.stops, boundaries);
  EXPECT_EQ(two_rec.wanteds, boundaries);
  EXPECT_EQ(one_rec.stops, boundaries);
  // Both kinds of boundary were met: inside a team, and between a team and
  // the step that runs its own regions.
  int inside = 0;
  for (bool b : two_rec.in_region) inside += b ? 1 : 0;
  EXPECT_GT(inside, 0) << "no boundary inside a team";
  EXPECT_LT(inside, boundaries) << "no boundary between teams";
  for (bool b : one_rec.in_region) EXPECT_FALSE(b) << "one thread: no team";
}

TEST(ThreadTeamGraph, AYieldAskedInsideATeamHappensOutsideAnyRegion) {
  const Graph m = mixed_graph();
  const GraphRun plain = run(m.g, 2, nullptr);
  // Find a boundary inside a team, then yield there.
  Recorder probe;
  run(m.g, 2, &probe);
  int inside_call = -1;
  for (size_t i = 0; i < probe.in_region.size() && inside_call < 0; ++i) {
    if (probe.in_region[i]) inside_call = static_cast<int>(i) + 1;
  }
  ASSERT_GT(inside_call, 0);
  Recorder rec;
  rec.yield_at_call = inside_call;
  const GraphRun r = run(m.g, 2, &rec);
  ASSERT_EQ(r.error, htp::GraphError::kNone) << r.message;
  ASSERT_EQ(rec.yielded_before, (std::vector<size_t>{static_cast<size_t>(inside_call)}));
  EXPECT_FALSE(rec.yield_in_region);
  EXPECT_EQ(rec.wanteds, static_cast<int>(r.profile.size()) - 1) << "the boundary is not asked twice";
  EXPECT_EQ(r.out, plain.out);
}

TEST(ThreadTeamGraph, AStopInsideATeamEndsTheExecuteThere) {
  const Graph m = mixed_graph();
  Recorder probe;
  run(m.g, 2, &probe);
  int inside_call = -1;
  for (size_t i = 0; i < probe.in_region.size(); ++i) {
    if (probe.in_region[i]) inside_call = static_cast<int>(i) + 1;  // the last one
  }
  ASSERT_GT(inside_call, 0);
  Recorder rec;
  rec.stop_at_call = inside_call;
  const GraphRun r = run(m.g, 2, &rec);
  EXPECT_EQ(r.error, htp::GraphError::kAborted);
  const std::string next = r.profile[static_cast<size_t>(inside_call)].name;
  EXPECT_NE(r.message.find("before node '" + next + "'"), std::string::npos) << r.message;
  for (size_t s = 0; s < r.profile.size(); ++s) {
    EXPECT_EQ(r.profile[s].runs, s < static_cast<size_t>(inside_call) ? 1u : 0u) << r.profile[s].name;
  }
}

// Node profiling times each thread's part of a step: on one thread a step's
// only thread is busy for all of it; on two, the steps split in a team (the
// Relus before conv_a) and the one that opens regions of its own (conv_a,
// read off the threads' CPU clocks) show time on both threads, none more
// than the step's own time.
TEST(ThreadTeamGraph, NodeProfilesTimeEachThreadsPart) {
  const Graph m = mixed_graph();
  const GraphRun one = run(m.g, 1, nullptr);
  const GraphRun two = run(m.g, 2, nullptr);
  ASSERT_EQ(one.error, htp::GraphError::kNone) << one.message;
  ASSERT_EQ(two.error, htp::GraphError::kNone) << two.message;
  for (const auto& step : one.profile) {
    ASSERT_EQ(step.runs, 1u) << step.name;
    ASSERT_EQ(step.thread_ns.size(), 1u) << step.name;
    EXPECT_EQ(step.thread_ns[0], step.total_ns) << step.name;
  }
  for (const auto& step : two.profile) {
    ASSERT_EQ(step.runs, 1u) << step.name;
    for (uint64_t ns : step.thread_ns) EXPECT_LE(ns, step.total_ns) << step.name;
  }
  ASSERT_GE(two.profile.size(), 3u);
  for (size_t s : {size_t{0}, size_t{1}, size_t{2}}) {  // relu_0, relu_1, conv_a (+ relu_a)
    const auto& step = two.profile[s];
    ASSERT_GE(step.thread_ns.size(), 2u) << step.name;
    EXPECT_GT(step.thread_ns[0], 0u) << step.name;
    EXPECT_GT(step.thread_ns[1], 0u) << step.name << ": the second thread's share";
  }
  EXPECT_EQ(two.profile[2].name.rfind("conv_a", 0), 0u) << two.profile[2].name;
}

// Two inverted-residual blocks as MobileNetV2 runs them (expand 1x1 + Relu,
// depthwise 3x3 + Relu, project 1x1 + the residual Add): on two threads the
// convolutions run in slabs, and the depthwise -> project -> next expand
// steps chain (htp/share_chain.h) with no barrier between them; the
// depthwise, which reads halo rows the other thread's expansion wrote, is
// fenced instead of joined after it (threads::FencedShares). Whatever the
// threads' timing, the outputs are those of one thread.
TEST(ThreadTeamGraph, ChainedStepsGiveTheOneThreadOutputs) {
  Graph m;
  constexpr uint32_t h = 24, c = 8, e = 48;
  const uint32_t x = m.tensor(tt::kAppWrite, {1, h, h, c});
  uint32_t t = x;
  for (int b = 0; b < 2; ++b) {
    const std::string p = "b" + std::to_string(b) + "_";
    uint32_t u = m.pointwise(p + "expand", t, h, c, e, true);
    u = m.depthwise(p + "dw", u, h, e);
    u = m.pointwise(p + "project", u, h, e, c, false);
    t = m.add(p + "add", u, t, {1, h, h, c});
  }
  m.pointwise("head", t, h, c, e, true, tt::kAppRead);
  const std::vector<float> one = run(m.g, 1, nullptr, 2, false).out;
  const uint64_t before = threads::unjoined_dispatches();
  const uint64_t fenced_before = threads::fenced_dispatches();
  for (int round = 0; round < 6 && !HasFailure(); ++round) {
    GraphRun r = run(m.g, 2, nullptr, 6, false);
    ASSERT_EQ(r.error, htp::GraphError::kNone) << r.message;
    r.earlier.push_back(r.out);
    for (size_t e = 0; e < r.earlier.size(); ++e) {
      const std::vector<float>& two = r.earlier[e];
      ASSERT_EQ(two.size(), one.size());
      for (size_t i = 0; i < one.size(); ++i) {
        ASSERT_NEAR(two[i], one[i], 1e-4f * (1.0f + std::fabs(one[i])))
            << "round " << round << ", execute " << e + 2 << ", element " << i;
      }
    }
  }
  if (omp_get_num_procs() > 1 && threads::teams_enabled() && htp::share_chains_enabled()) {
    EXPECT_GE(threads::unjoined_dispatches() - before, 6u * 5 * 2 * 2) << "two links a block chained, every execute";
    if (htp::share_fences_enabled()) {
      // The depthwise reads halo rows the other thread's expansion wrote:
      // fenced, not chained.
      EXPECT_GE(threads::fenced_dispatches() - fenced_before, 6u * 5 * 2) << "each block's depthwise, every execute";
    }
  }
}

// Where fewer than two steps of a stretch split (small tensors stay on the
// calling thread), no team is started: the graph pays for no region.
TEST(ThreadTeamGraph, StepsThatDoNotSplitStartNoTeam) {
  Graph m;
  const uint32_t x = m.tensor(tt::kAppWrite, {1, 8, 8, 4});
  uint32_t t = m.relu("r0", x, {1, 8, 8, 4});
  t = m.relu("r1", t, {1, 8, 8, 4});
  m.relu("r2", t, {1, 8, 8, 4}, tt::kAppRead);
  Recorder rec;
  const GraphRun r = run(m.g, 2, &rec);
  ASSERT_EQ(r.error, htp::GraphError::kNone) << r.message;
  ASSERT_EQ(rec.in_region.size(), 2u);
  for (bool b : rec.in_region) EXPECT_FALSE(b);
}

}  // namespace
}  // namespace openhtp
