// How a native program keeps the memory it frees (native only; core/host/process_memory.cpp).
#pragma once

namespace icl {

// Called once at the start of each native program (icl, icl-lab). glibc's malloc hands a
// freed block back to the kernel when it was mmap'd (past a threshold that starts at
// 128 KiB) or sits at the heap's top past the trim threshold, so a demo that allocates
// and frees per unit of work pays a page fault per 4 KiB every time (icl_vs_finetune builds
// a trainer for each fine-tuning). Blocks up to 32 MiB (glibc's largest
// threshold on 64-bit) then come from the heap, and up to 256 MiB freed stays there.
// Elsewhere (wasm's heap keeps everything; other C libraries) it does nothing.
void keep_freed_memory();

}  // namespace icl
