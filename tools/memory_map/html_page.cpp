#include "html_page.h"

#include <sstream>

#include "svg_map.h"

namespace openhtp::memory_map {
namespace {

using tools::GraphMemoryPlan;
using tools::MemoryRegion;
using tools::PlannedTensor;

constexpr const char* kStyle =
    "body{font-family:sans-serif;margin:16px;color:#222;background:#fff}"
    "h1{font-size:18px;margin:0 0 8px}"
    "table{border-collapse:collapse;margin:8px 0 16px;font-size:12px}"
    "td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}"
    "th{background:#f2f2f2}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}"
    ".legend span{display:inline-block;margin-right:16px;font-size:12px}"
    ".legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px}"
    ".note{font-size:12px;color:#555;max-width:1100px}";

void row(std::ostringstream& o, const std::string& what, uint64_t bytes) {
  o << "<tr><th>" << xml_escape(what) << "</th><td class=\"n\">" << bytes << "</td><td>" << human_bytes(bytes)
    << "</td></tr>\n";
}

std::string op_name(const GraphMemoryPlan& g, int i) {
  return i >= 0 && static_cast<size_t>(i) < g.ops.size() ? g.ops[i].name : std::string();
}

}  // namespace

std::string render_page(const GraphMemoryPlan& g, const std::string& source) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Memory map: "
    << xml_escape(g.graph_name) << "</title>\n<style>" << kStyle << "</style>\n</head>\n<body>\n";
  o << "<h1>Memory map of graph " << xml_escape(g.graph_name) << "</h1>\n";
  o << "<p class=\"note\">From <code>" << xml_escape(source) << "</code>: " << g.ops.size() << " ops, "
    << g.tensors.size() << " tensors. "
    << (g.stored ? "Offsets are the plan stored in the binary (what a load is held to)."
                 : "This binary stores no plan (format 1.0): NATIVE tensors are shown unplaced; a load plans them "
                   "anew.")
    << "</p>\n";

  o << "<div class=\"legend\">"
       "<span><i style=\"background:#4e79a7\"></i>VTCM tensor</span>"
       "<span><i style=\"background:#e15759\"></i>spilled tensor (spill-fill, DDR)</span>"
       "<span><i style=\"background:#b0a48c\"></i>weights (STATIC)</span>"
       "<span><i style=\"background:#7f63b8\"></i>graph input / output (client buffer)</span>"
       "<span><i style=\"background:none;border-top:2px dashed #d62728;height:0\"></i>VTCM budget</span>"
       "</div>\n";
  o << "<p class=\"note\">x: op index (execution order); each box spans its tensor's first to last use. "
       "y: offset in its region, 0 at the bottom. Hover a box for its name, ops, shape, type and bytes; hover the "
       "op strip for op names. Kernel workspaces are planned too but not stored in the binary, so the gaps they "
       "took are not drawn.</p>\n";

  o << render_svg(g);
  o << "<table id=\"totals\">\n<tr><th>total</th><th>bytes</th><th></th></tr>\n";
  row(o, "VTCM budget", g.vtcm_budget_bytes);
  row(o, "VTCM used (peak)", g.vtcm_bytes);
  row(o, "spill-fill region", g.spill_fill_bytes);
  row(o, "arena (VTCM + spill-fill)", g.arena_bytes);
  row(o, "weights", g.weights_bytes);
  row(o, "client I/O", g.client_io_bytes);
  o << "</table>\n";


  o << "<h2 style=\"font-size:15px\">Spilled tensors</h2>\n";
  size_t spilled = 0;
  std::ostringstream rows;
  for (const PlannedTensor& t : g.tensors) {
    if (t.region != MemoryRegion::kSpillFill) continue;
    ++spilled;
    rows << "<tr data-id=\"" << t.id << "\"><td>" << xml_escape(t.name) << "</td><td class=\"n\">" << t.bytes
         << "</td><td class=\"n\">" << t.offset << "</td><td>" << t.first_use << "–" << t.last_use << " ("
         << xml_escape(op_name(g, t.first_use)) << ")</td><td>" << xml_escape(t.spill_reason) << "</td></tr>\n";
  }
  if (spilled == 0) {
    o << "<p class=\"note\" id=\"no-spills\">None: every planned tensor fits the VTCM budget.</p>\n";
  } else {
    o << "<table id=\"spilled\">\n<tr><th>tensor</th><th>bytes</th><th>spill-fill offset</th><th>ops</th>"
         "<th>why (derived from the plan)</th></tr>\n"
      << rows.str() << "</table>\n";
  }
  o << "</body>\n</html>\n";
  return o.str();
}

}  // namespace openhtp::memory_map
