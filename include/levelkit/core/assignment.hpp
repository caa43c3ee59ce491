// The assignment problem (Hungarian method): pair rows with distinct columns at least total cost.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace lk {

// `cost` is row-major, rows x cols. Returns, per row, the column assigned to it; when there are
// more rows than columns the rows left over get -1. O(n^2 m) for n = min(rows, cols).
std::vector<int> min_cost_assignment(std::span<const double> cost, std::size_t rows,
                                     std::size_t cols);

}  // namespace lk
