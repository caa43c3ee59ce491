#include "levelkit/core/memory.hpp"

#include <atomic>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace lk {

void give_back_free_heap(std::size_t min_new_free) {
#if defined(__GLIBC__)
    static std::atomic<std::size_t> free_after_last{0};
    if (min_new_free > 0) {
        const std::size_t now = mallinfo2().fordblks;
        const std::size_t mark = free_after_last.load(std::memory_order_relaxed);
        if (now < mark + min_new_free) {
            if (now < mark) free_after_last.store(now, std::memory_order_relaxed);
            return;
        }
    }
    malloc_trim(0);
    free_after_last.store(mallinfo2().fordblks, std::memory_order_relaxed);
#else
    (void)min_new_free;
#endif
}

}  // namespace lk
