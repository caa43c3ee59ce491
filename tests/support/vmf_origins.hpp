// The source offsets of everything in a VMF model that carries an Origin, in model order (entity,
// its solids, their sides and displacements, connections). Origins never take part in Map's
// equality, so tests and fuzz_vmf compare them with this to check that two readers placed every
// object at the same byte.
#pragma once

#include <cstdint>
#include <vector>

#include "levelkit/vmf/vmf.hpp"

namespace lk::test {

inline void add_origins(const vmf::Entity& e, std::vector<std::uint32_t>& out) {
    out.push_back(e.origin.offset);
    for (const vmf::Connection& c : e.connections) out.push_back(c.origin.offset);
    for (const vmf::Solid& s : e.solids) {
        out.push_back(s.origin.offset);
        for (const vmf::Side& side : s.sides) {
            out.push_back(side.origin.offset);
            if (side.disp) out.push_back(side.disp->origin.offset);
        }
    }
}

inline std::vector<std::uint32_t> vmf_origins(const vmf::Map& m) {
    std::vector<std::uint32_t> out;
    add_origins(m.world, out);
    for (const vmf::Entity& e : m.entities) add_origins(e, out);
    return out;
}

}  // namespace lk::test
