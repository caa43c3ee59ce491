// vmf::summarize against what it summarises: read_map on one thread, whole. Both succeed or fail
// alike (the same error), give the same diagnostics at the same offsets, the summary's counts
// are stats() of the model, and its head is the model without world solids and entities.
#pragma once

#include <string>

#include "levelkit/vmf/vmf.hpp"

namespace lk::test {

// "" when all holds, else what differs. `map` and `md`: read_map's result and diagnostics for
// `blob`, read whole (the map is taken: its solids and entities are dropped to compare).
inline std::string summary_mismatch(const Blob& blob, const vmf::ReadOptions& opt,
                                    Result<vmf::Map> map, const Diagnostics& md) {
    Diagnostics sd;
    auto sum = vmf::summarize(blob, sd, opt);
    if (map.ok() != sum.ok()) return map.ok() ? "only summarize failed" : "only read_map failed";
    if (!map) {
        if (map.error().to_string() != sum.error().to_string()) {
            return "errors differ: " + map.error().to_string() + " / " + sum.error().to_string();
        }
        return {};
    }
    if (!(vmf::stats(*map) == sum->stats)) return "counts differ";
    vmf::Map head = std::move(map).value();
    head.world.solids.clear();
    head.entities.clear();
    if (!(head == sum->head)) return "heads differ";
    if (md.size() != sd.size()) {
        return std::to_string(md.size()) + " vs " + std::to_string(sd.size()) + " diagnostics";
    }
    for (std::size_t i = 0; i < md.size(); ++i) {
        const Diagnostic& a = md.items()[i];
        const Diagnostic& b = sd.items()[i];
        if (a.to_string() != b.to_string() || a.offset != b.offset) {
            return "diagnostic differs: " + a.to_string() + " / " + b.to_string();
        }
    }
    return {};
}

inline std::string summary_mismatch(const Blob& blob, const vmf::ReadOptions& opt) {
    Diagnostics md;
    vmf::ReadOptions whole = opt;
    whole.threads = 1;
    whole.pieces = 0;
    auto map = vmf::read_map(blob, md, whole);
    return summary_mismatch(blob, opt, std::move(map), md);
}

}  // namespace lk::test
