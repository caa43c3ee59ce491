// Process memory: handing freed heap back to the system.
#pragma once

#include <cstddef>

namespace lk {

// Returns the heap's free pages to the system (glibc's malloc_trim; nothing with another C
// library). A trim walks every free block of every thread's heap, so with `min_new_free` it
// runs only once that many bytes more are free than after the previous trim; a heap that
// shrank since (memory reused) lowers the mark, so that what is freed next counts from there.
// Thread-safe. A long job that frees a large input before building its output (a conversion
// whose input was read on other threads' arenas) uses it to keep its peak low; a batch that
// reuses the memory for its next file should not.
void give_back_free_heap(std::size_t min_new_free = 0);

}  // namespace lk
