#include "internal.hpp"
namespace lk::dmx::detail {
std::string binary_layout_hint(const Document&, const std::vector<std::int32_t>&) {
    return {};
}
Result<void> apply_binary_layout_hint(std::string_view, Document&) {
    return success();
}
}  // namespace lk::dmx::detail
