#include "levelkit/core/assignment.hpp"

#include <limits>

namespace lk {

namespace {

// Kuhn-Munkres with row/column potentials for n <= m (rows <= cols), 1-based internally.
std::vector<int> solve(std::size_t n, std::size_t m, auto&& at) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    std::vector<double> u(n + 1, 0), v(m + 1, 0), minv(m + 1);
    std::vector<std::size_t> p(m + 1, 0), way(m + 1, 0);
    std::vector<char> used(m + 1);
    for (std::size_t i = 1; i <= n; ++i) {
        p[0] = i;
        std::size_t j0 = 0;
        std::fill(minv.begin(), minv.end(), kInf);
        std::fill(used.begin(), used.end(), 0);
        do {
            used[j0] = 1;
            const std::size_t i0 = p[j0];
            double delta = kInf;
            std::size_t j1 = 0;
            for (std::size_t j = 1; j <= m; ++j) {
                if (used[j]) continue;
                const double cur = at(i0 - 1, j - 1) - u[i0] - v[j];
                if (cur < minv[j]) {
                    minv[j] = cur;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (std::size_t j = 0; j <= m; ++j) {
                if (used[j]) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            const std::size_t j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    std::vector<int> row_to_col(n, -1);
    for (std::size_t j = 1; j <= m; ++j) {
        if (p[j] != 0) row_to_col[p[j] - 1] = static_cast<int>(j - 1);
    }
    return row_to_col;
}

}  // namespace

std::vector<int> min_cost_assignment(std::span<const double> cost, std::size_t rows,
                                     std::size_t cols) {
    if (rows == 0 || cols == 0 || cost.size() < rows * cols) return std::vector<int>(rows, -1);
    if (rows <= cols) {
        return solve(rows, cols, [&](std::size_t r, std::size_t c) { return cost[r * cols + c]; });
    }
    // More rows than columns: assign each column a row, then invert.
    const std::vector<int> col_to_row =
        solve(cols, rows, [&](std::size_t c, std::size_t r) { return cost[r * cols + c]; });
    std::vector<int> out(rows, -1);
    for (std::size_t c = 0; c < cols; ++c) {
        if (col_to_row[c] >= 0) out[static_cast<std::size_t>(col_to_row[c])] = static_cast<int>(c);
    }
    return out;
}

}  // namespace lk
