/* cblas_sgemm for MLX's CPU backend on Linux x86-64, routed by the product's row count:
 *   fewer than WIDE_ROWS rows -> the next cblas_sgemm in the lookup order (MKL, preloaded right after this)
 *   WIDE_ROWS rows or more    -> the BLAS at $MLX_QWEN3ASR_WIDE_BLAS (OpenBLAS), loaded privately
 * The choice depends on the product's shape alone, never on what ran before: the two libraries give
 * different bits for the same product, so a rule with memory (an earlier version kept small products
 * on the library of the product before) made the same input give other results after other work.
 * MKL runs one-row products (decoding) ~2x faster than Debian's OpenBLAS 0.3.21, which runs products of
 * many rows (encoder, prefill) ~1.2x faster (docs/performance.md). blas.py compiles and preloads this. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* Decoding's products have a row per sequence (at most 16 in a batch) and attention's a few per head;
 * the encoder's and the prefill's a row per frame or token (hundreds). All of a decode stays on one
 * library: each library's idle threads spin for a while after a call, and two alternating libraries
 * would make each wait on the other's (on two CPU streams each library runs one thread per stream). */
#define WIDE_ROWS 32

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float,
                         float *, int);
static sgemm_fn narrow, wide;
static void *wide_library;
static int ready;
long mlx_qwen3asr_blas_calls[2]; /* products run by the narrow and the wide library (tests read them) */

/* At the first product, not at load: every process started with the preload (ffmpeg, a shell) gets the
 * router too, and need not load a second BLAS. Two threads racing here compute the same two pointers. */
static void find_libraries(void) {
    narrow = (sgemm_fn)dlsym(RTLD_NEXT, "cblas_sgemm");
    const char *path = getenv("MLX_QWEN3ASR_WIDE_BLAS");
    /* DEEPBIND: the wide library's calls to its own functions must not resolve to MKL's of the same names */
    wide_library = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND) : NULL;
    wide = wide_library ? (sgemm_fn)dlsym(wide_library, "cblas_sgemm") : NULL;
    if (!wide)
        fprintf(stderr, "warning: mlx_qwen3asr BLAS router: MLX_QWEN3ASR_WIDE_BLAS=%s could not be loaded; "
                        "every product runs on the BLAS preloaded after the router\n", path ? path : "");
    if (!narrow)
        fprintf(stderr, "warning: mlx_qwen3asr BLAS router: no BLAS preloaded after the router; every product "
                        "runs on MLX_QWEN3ASR_WIDE_BLAS\n");
    if (!narrow) narrow = wide;
    if (!wide) wide = narrow;
    if (!narrow) {
        fprintf(stderr, "error: mlx_qwen3asr BLAS router: no cblas_sgemm to run the product on\n");
        exit(70);
    }
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

void cblas_sgemm(int order, int trans_a, int trans_b, int m, int n, int k, float alpha, const float *a, int lda,
                 const float *b, int ldb, float beta, float *c, int ldc) {
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) find_libraries();
    int is_wide = m >= WIDE_ROWS;
    __atomic_fetch_add(&mlx_qwen3asr_blas_calls[is_wide], 1, __ATOMIC_RELAXED);
    (is_wide ? wide : narrow)(order, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

/* Sets the wide library's thread count (blas.threads sets the narrow one's beside it; n < 1 only asks) and
 * returns the count before, or 0 when it has no OpenBLAS thread functions. */
int mlx_qwen3asr_wide_threads(int n) {
    if (!__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) find_libraries();
    void (*set)(int) = wide_library ? (void (*)(int))dlsym(wide_library, "openblas_set_num_threads") : NULL;
    int (*get)(void) = wide_library ? (int (*)(void))dlsym(wide_library, "openblas_get_num_threads") : NULL;
    if (!set || !get) return 0;
    int before = get();
    if (n > 0) set(n);
    return before;
}
