#include "internal.hpp"
namespace lk::dmx::detail {
bool kv2_can_hold(int version, Type t) {
    const Type s = scalar_of(t);
    return version >= 4 || (s != Type::uint64 && s != Type::uint8);
}
Result<void> read_kv2(std::string_view, std::size_t, Document&, const ReadOptions&) {
    return Diagnostic::error("dmx.todo", "kv2 not yet");
}
Result<void> write_kv2(const Document&, std::string&, const Kv2WriteOptions&) {
    return Diagnostic::error("dmx.todo", "kv2 not yet");
}
}  // namespace lk::dmx::detail
