// WMB reader: no input may crash it; whatever reads must write back to exactly the input
// bytes, decode strictly or not without crashing, and convert to the scene, to a WMP level and
// to pictures without crashing.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "levelkit/convert/scene_wmp.hpp"
#include "levelkit/convert/wmb_scene.hpp"
#include "levelkit/wmb/images.hpp"
#include "levelkit/wmb/wmb.hpp"
#include "levelkit/wmp/wmp.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const lk::ByteSpan bytes(reinterpret_cast<const std::byte*>(data), size);
    lk::Diagnostics w;
    auto f = lk::wmb::read(bytes, w);
    if (!f) return 0;
    auto out = lk::wmb::write(f.value());
    if (!out || out->size() != size || std::memcmp(out->data(), data, size) != 0) std::abort();
    (void)lk::wmb::decode(f.value(), w, true);
    lk::Diagnostics d;
    auto s = lk::convert::wmb_to_scene(f.value(), d);
    if (!s) std::abort();
    if (auto lv = lk::convert::scene_to_wmp(s.value(), d)) (void)lk::wmp::write_text(lv.value());
    for (std::size_t i = 0; i < f->views.textures.size() && i < 8; ++i) {
        auto img = lk::wmb::texture_image(f->views, i);
        if (img && img->pixels.size() <= (1u << 20)) (void)lk::wmb::encode_png(img.value());
    }
    return 0;
}
