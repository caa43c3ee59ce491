#include <gtest/gtest.h>

#include "levelkit/core/assignment.hpp"

using namespace lk;

TEST(Assignment, PicksTheCheapestPairing) {
    // Greedy (row 0 takes column 0) would cost 1 + 100; the optimum is 2 + 3.
    const std::vector<double> cost{1, 2,  //
                                   3, 100};
    EXPECT_EQ(min_cost_assignment(cost, 2, 2), (std::vector<int>{1, 0}));
}

TEST(Assignment, RectangularBothWays) {
    const std::vector<double> wide{5, 1, 9,  //
                                   2, 8, 7};
    EXPECT_EQ(min_cost_assignment(wide, 2, 3), (std::vector<int>{1, 0}));
    // Three rows, two columns: the row left over gets -1.
    const std::vector<double> tall{5, 2,  //
                                   1, 8,  //
                                   9, 7};
    EXPECT_EQ(min_cost_assignment(tall, 3, 2), (std::vector<int>{1, 0, -1}));
    EXPECT_EQ(min_cost_assignment({}, 0, 4), std::vector<int>{});
    EXPECT_EQ(min_cost_assignment({}, 2, 0), (std::vector<int>{-1, -1}));
}

TEST(Assignment, NegativeCostsMaximiseScores) {
    // Scores as negative costs: the matching with the most total overlap wins.
    const std::vector<double> cost{-0.9,  -0.8, 0,  //
                                   -0.85, 0,    0,  //
                                   0,     0,    -0.1};
    EXPECT_EQ(min_cost_assignment(cost, 3, 3), (std::vector<int>{1, 0, 2}));
}
