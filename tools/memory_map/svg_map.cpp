#include "svg_map.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

#include "QnnTypes.h"
#include "enum_names.h"

namespace openhtp::memory_map {
namespace {

using tools::GraphMemoryPlan;
using tools::MemoryRegion;
using tools::PlannedTensor;

// Geometry, in px. The plot aims at ~1100 px whatever the op count: a
// 150-op graph gets ~7 px per op, a 19-op one 48 (the cap, so short graphs
// do not turn into a few giant boxes).
constexpr double kLeft = 130;       // room for the y-axis labels
constexpr double kRight = 40;
constexpr double kTargetPlotWidth = 1100;
constexpr double kMinOpWidth = 6;
constexpr double kMaxOpWidth = 48;
constexpr double kVtcmHeight = 300;
constexpr double kSpillHeight = 180;
constexpr double kEmptyPanelHeight = 36;
constexpr double kLaneRow = 8;
constexpr double kLaneGap = 2;
constexpr double kPanelTitle = 26;  // title line above each panel
constexpr double kPanelGap = 14;
constexpr double kStrip = 14;       // the op strip
constexpr double kMinLabelSpacing = 36;  // px between x-axis labels

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string dims_text(const std::vector<uint32_t>& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

std::string op_text(const GraphMemoryPlan& g, int i) {
  if (i < 0 || static_cast<size_t>(i) >= g.ops.size()) return "op " + std::to_string(i);
  return "op " + std::to_string(i) + " " + g.ops[i].name + " (" + g.ops[i].type + ")";
}

bool writes(const GraphMemoryPlan& g, int op, uint32_t id) {
  if (op < 0 || static_cast<size_t>(op) >= g.ops.size()) return false;
  const auto& outs = g.ops[op].outputs;
  return std::find(outs.begin(), outs.end(), id) != outs.end();
}

// The tooltip: what the tensor is, where it lives, which ops use it.
std::string tooltip(const GraphMemoryPlan& g, const PlannedTensor& t) {
  std::string s = t.name + "\n";
  s += tools::memory_region_name(t.region);
  if (t.region == MemoryRegion::kVtcm || t.region == MemoryRegion::kSpillFill || t.region == MemoryRegion::kWeights) {
    s += " offset " + std::to_string(t.offset);
  }
  s += ", " + human_bytes(t.bytes) + " (" + std::to_string(t.bytes) + " B)\n";
  s += (writes(g, t.first_use, t.id) ? "made by " : "first read by ") + op_text(g, t.first_use) + "\n";
  if (t.last_use != t.first_use) s += "last used by " + op_text(g, t.last_use) + "\n";
  s += "shape " + dims_text(t.dims) + " " + tools::data_type_name(static_cast<Qnn_DataType_t>(t.data_type));
  if (t.region == MemoryRegion::kSpillFill) s += "\nspilled: " + t.spill_reason;
  return s;
}

// Distinct, calm fills; spilled tensors get warm ones so they stand out.
const char* fill_of(const PlannedTensor& t, size_t k) {
  static const char* kCool[] = {"#4e79a7", "#59a14f", "#76b7b2", "#8cd17d", "#499894", "#86bcb6", "#a0cbe8", "#6b8fb5"};
  static const char* kWarm[] = {"#e15759", "#f28e2b", "#ff9d9a", "#d37295", "#b6992d", "#f1ce63"};
  switch (t.region) {
    case MemoryRegion::kVtcm: return kCool[k % 8];
    case MemoryRegion::kSpillFill: return kWarm[k % 6];
    case MemoryRegion::kWeights: return "#b0a48c";
    case MemoryRegion::kClientIo: return "#7f63b8";
    case MemoryRegion::kUnplaced: return "#bab0ac";
  }
  return "#999999";
}

struct Panel {
  const char* id;
  double top = 0, height = 0;  // px
  double top_bytes = 1;        // bytes at the top edge
  double px_per_byte() const { return height / top_bytes; }
  double base() const { return top + height; }  // y of offset 0
};

class Svg {
 public:
  Svg(const GraphMemoryPlan& g) : g_(g) {
    n_ops_ = std::max<size_t>(1, g.ops.size());
    op_w_ = std::clamp(kTargetPlotWidth / static_cast<double>(n_ops_), kMinOpWidth, kMaxOpWidth);
  }

  std::string render() {
    std::vector<const PlannedTensor*> vtcm, spill, lane;
    for (const PlannedTensor& t : g_.tensors) {
      if (t.first_use < 0) continue;
      (t.region == MemoryRegion::kVtcm        ? vtcm
       : t.region == MemoryRegion::kSpillFill ? spill
                                              : lane)
          .push_back(&t);
    }
    // Panels top to bottom.
    double y = 40;  // the heading
    Panel vp{"vtcm", y + kPanelTitle, kVtcmHeight, 1};
    uint64_t used = std::max<uint64_t>(1, g_.vtcm_bytes);
    for (const auto* t : vtcm) used = std::max(used, t->offset + t->slot_bytes);
    // A budget far above the use would squash every box into the bottom
    // few px; then the scale fits the use and the line sits on the top edge.
    budget_off_scale_ = static_cast<double>(g_.vtcm_budget_bytes) > 2.0 * static_cast<double>(used);
    vp.top_bytes = budget_off_scale_ ? used * 1.15 : std::max<double>(g_.vtcm_budget_bytes, used) * 1.08;
    y = vp.base() + kPanelGap;

    Panel sp{"spill-fill", y + kPanelTitle, spill.empty() ? kEmptyPanelHeight : kSpillHeight, 1};
    uint64_t spill_top = std::max<uint64_t>(1, g_.spill_fill_bytes);
    for (const auto* t : spill) spill_top = std::max(spill_top, t->offset + t->slot_bytes);
    sp.top_bytes = spill_top * 1.08;
    y = sp.base() + kPanelGap;

    // Weights and I/O: first-fit rows by lifetime.
    std::vector<int> row_end;
    std::vector<size_t> row_of(lane.size());
    std::vector<size_t> order(lane.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return lane[a]->first_use < lane[b]->first_use; });
    for (size_t i : order) {
      size_t r = 0;
      while (r < row_end.size() && row_end[r] >= lane[i]->first_use) ++r;
      if (r == row_end.size()) row_end.push_back(-1);
      row_end[r] = lane[i]->last_use;
      row_of[i] = r;
    }
    const double lane_h = std::max<double>(1, row_end.size()) * (kLaneRow + kLaneGap) + kLaneGap;
    Panel lp{"weights-io", y + kPanelTitle, lane_h, 1};
    y = lp.base() + 6;
    const double strip_top = y;
    const double total_h = strip_top + kStrip + 34;
    const double width = kLeft + op_w_ * n_ops_ + kRight;

    out_ << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(width) << "\" height=\"" << num(total_h)
         << "\" viewBox=\"0 0 " << num(width) << ' ' << num(total_h)
         << "\" font-family=\"sans-serif\" font-size=\"11\" data-graph=\"" << xml_escape(g_.graph_name)
         << "\" data-num-ops=\"" << g_.ops.size() << "\">\n";
    out_ << "<rect x=\"0\" y=\"0\" width=\"" << num(width) << "\" height=\"" << num(total_h) << "\" fill=\"#ffffff\"/>\n";
    out_ << "<text x=\"" << kLeft << "\" y=\"24\" font-size=\"15\" font-weight=\"bold\">Memory plan of graph "
         << xml_escape(g_.graph_name) << " (" << g_.ops.size() << " ops)</text>\n";
    grid(vp.top, strip_top);

    panel_frame(vp, "VTCM (offset; budget " + human_bytes(g_.vtcm_budget_bytes) + ", peak " +
                        human_bytes(g_.vtcm_bytes) + ")");
    for (size_t k = 0; k < vtcm.size(); ++k) offset_box(vp, *vtcm[k], k);
    budget_line(vp);  // over the boxes, so it stays visible
    close_panel();

    panel_frame(sp, "spill-fill (DDR; offset; region " + human_bytes(g_.spill_fill_bytes) + ")");
    if (spill.empty()) {
      out_ << "<text x=\"" << num(kLeft + 8) << "\" y=\"" << num(sp.top + 22)
           << "\" fill=\"#555\">nothing spilled: every planned tensor is in VTCM</text>\n";
    }
    for (size_t k = 0; k < spill.size(); ++k) offset_box(sp, *spill[k], k);
    close_panel();

    panel_frame(lp, "weights and graph I/O (lifetime only; weights " + human_bytes(g_.weights_bytes) +
                        ", client I/O " + human_bytes(g_.client_io_bytes) + ")",
                /*axis=*/false);
    for (size_t i = 0; i < lane.size(); ++i) {
      const double top = lp.top + kLaneGap + static_cast<double>(row_of[i]) * (kLaneRow + kLaneGap);
      box(*lane[i], i, top, kLaneRow);
    }
    close_panel();

    op_strip(strip_top);
    out_ << "</svg>\n";
    return out_.str();
  }

 private:
  double x_of(int op) const { return kLeft + op * op_w_; }

  int label_step() const {
    static const int kSteps[] = {1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000};
    for (int s : kSteps) {
      if (s * op_w_ >= kMinLabelSpacing) return s;
    }
    return static_cast<int>(std::ceil(kMinLabelSpacing / op_w_));
  }

  void grid(double top, double bottom) {
    const int step = label_step();
    for (size_t op = 0; op <= n_ops_; op += step) {
      out_ << "<line x1=\"" << num(x_of(op)) << "\" y1=\"" << num(top) << "\" x2=\"" << num(x_of(op))
           << "\" y2=\"" << num(bottom) << "\" stroke=\"#eeeeee\"/>\n";
    }
  }

  void panel_frame(const Panel& p, const std::string& title, bool axis = true) {
    out_ << "<g class=\"panel\" id=\"panel-" << p.id << "\" data-panel=\"" << p.id << "\" data-x0=\"" << num(kLeft)
         << "\" data-op-width=\"" << op_w_ << "\" data-y-base=\"" << num(p.base()) << "\" data-px-per-byte=\""
         << p.px_per_byte() << "\">\n";
    out_ << "<text x=\"" << num(kLeft) << "\" y=\"" << num(p.top - 8) << "\" font-weight=\"bold\">" << xml_escape(title)
         << "</text>\n";
    out_ << "<rect x=\"" << num(kLeft) << "\" y=\"" << num(p.top) << "\" width=\"" << num(op_w_ * n_ops_)
         << "\" height=\"" << num(p.height) << "\" fill=\"none\" stroke=\"#999999\"/>\n";
    if (!axis || p.height <= kEmptyPanelHeight) return;
    // Ticks on a power of two (what memory sizes are made of), 3 to 6 of them.
    double step = 1;
    while (step * 2 <= p.top_bytes / 3) step *= 2;
    for (double bytes = 0; bytes <= p.top_bytes; bytes += step) {
      const double yy = p.base() - bytes * p.px_per_byte();
      out_ << "<line x1=\"" << num(kLeft - 4) << "\" y1=\"" << num(yy) << "\" x2=\"" << num(kLeft) << "\" y2=\""
           << num(yy) << "\" stroke=\"#999999\"/><text x=\"" << num(kLeft - 7) << "\" y=\"" << num(yy + 4)
           << "\" text-anchor=\"end\" fill=\"#555\">" << human_bytes(static_cast<uint64_t>(bytes)) << "</text>\n";
    }
  }

  void close_panel() { out_ << "</g>\n"; }

  void budget_line(const Panel& p) {
    const double yy = budget_off_scale_ ? p.top : p.base() - g_.vtcm_budget_bytes * p.px_per_byte();
    const std::string label = "VTCM budget " + human_bytes(g_.vtcm_budget_bytes) +
                              (budget_off_scale_ ? " (far above: off scale)" : "");
    out_ << "<line class=\"budget\" x1=\"" << num(kLeft) << "\" y1=\"" << num(yy) << "\" x2=\""
         << num(kLeft + op_w_ * n_ops_) << "\" y2=\"" << num(yy)
         << "\" stroke=\"#d62728\" stroke-width=\"2\" stroke-dasharray=\"6 4\" data-budget-bytes=\""
         << g_.vtcm_budget_bytes << "\" data-off-scale=\"" << (budget_off_scale_ ? "true" : "false") << "\"><title>"
         << xml_escape(label) << "</title></line>\n";
    out_ << "<text x=\"" << num(kLeft + op_w_ * n_ops_ - 4) << "\" y=\"" << num(yy + 13)
         << "\" text-anchor=\"end\" fill=\"#d62728\">" << xml_escape(label) << "</text>\n";
  }

  void offset_box(const Panel& p, const PlannedTensor& t, size_t k) {
    const double h = std::max(kMinBoxPx, t.slot_bytes * p.px_per_byte());
    const double bottom = p.base() - t.offset * p.px_per_byte();
    box(t, k, bottom - h, h);
  }

  void box(const PlannedTensor& t, size_t k, double top, double h) {
    const double inset = op_w_ >= 8 ? 1.0 : 0.5;
    const double x = x_of(t.first_use) + inset;
    const double w = std::max(kMinBoxPx, (t.last_use - t.first_use + 1) * op_w_ - 2 * inset);
    out_ << "<rect class=\"tensor\" x=\"" << num(x) << "\" y=\"" << num(top) << "\" width=\"" << num(w)
         << "\" height=\"" << num(h) << "\" fill=\"" << fill_of(t, k)
         << "\" stroke=\"#ffffff\" stroke-width=\"0.5\" data-id=\"" << t.id << "\" data-name=\"" << xml_escape(t.name)
         << "\" data-region=\"" << tools::memory_region_name(t.region) << "\" data-offset=\"" << t.offset
         << "\" data-bytes=\"" << t.bytes << "\" data-slot-bytes=\"" << t.slot_bytes << "\" data-first=\""
         << t.first_use << "\" data-last=\"" << t.last_use << "\"><title>" << xml_escape(tooltip(g_, t))
         << "</title></rect>\n";
    // Labels only where they fit: a 150-op graph stays readable because
    // most boxes are unlabelled and named by their tooltip instead.
    const size_t chars = static_cast<size_t>((w - 6) / 6.2);
    if (h >= 13 && chars >= 8) {
      // The head of a name is what tells tensors apart in converter output
      // ("/stem/stem.0/Conv_output_0_nhwc"), so the tail is what is cut.
      size_t cut = chars - 1;
      while (cut > 0 && cut < t.name.size() && (static_cast<unsigned char>(t.name[cut]) & 0xC0) == 0x80) --cut;
      std::string label = t.name.size() <= chars ? t.name : t.name.substr(0, cut) + "…";
      out_ << "<text x=\"" << num(x + 3) << "\" y=\"" << num(top + std::min(h, 24.0) / 2 + 4)
           << "\" fill=\"#ffffff\" font-size=\"10\" pointer-events=\"none\">" << xml_escape(label) << "</text>\n";
    }
  }

  void op_strip(double top) {
    out_ << "<g id=\"ops\">\n";
    for (size_t i = 0; i < g_.ops.size(); ++i) {
      out_ << "<rect class=\"op\" x=\"" << num(x_of(i)) << "\" y=\"" << num(top) << "\" width=\"" << num(op_w_)
           << "\" height=\"" << kStrip << "\" fill=\"" << (i % 2 ? "#d9d9d9" : "#bdbdbd") << "\" data-index=\"" << i
           << "\"><title>" << xml_escape(op_text(g_, static_cast<int>(i))) << "</title></rect>\n";
    }
    const int step = label_step();
    for (size_t i = 0; i < g_.ops.size(); i += step) {
      out_ << "<text x=\"" << num(x_of(i) + op_w_ / 2) << "\" y=\"" << num(top + kStrip + 13)
           << "\" text-anchor=\"middle\" fill=\"#555\">" << i << "</text>\n";
    }
    out_ << "<text x=\"" << num(kLeft - 7) << "\" y=\"" << num(top + kStrip - 3)
         << "\" text-anchor=\"end\" fill=\"#555\">op</text>\n";
    out_ << "</g>\n";
  }

  const GraphMemoryPlan& g_;
  size_t n_ops_ = 1;
  double op_w_ = kMaxOpWidth;
  bool budget_off_scale_ = false;
  std::ostringstream out_;
};

}  // namespace

std::string xml_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string human_bytes(uint64_t bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 3) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, v < 10 ? "%.1f %s" : "%.0f %s", v, kUnits[u]);
  }
  return buf;
}

std::string render_svg(const tools::GraphMemoryPlan& plan) { return Svg(plan).render(); }

}  // namespace openhtp::memory_map
