// The comparison kernels of gpu/device/compare.py, read by its kernel_source(): the text before
// the first section is not part of them. "head" comes first in every source; "float", "int" and
// "complex" are one dtype's kernels each, with ${s} (the dtype's suffix), ${t} (its C type), ${p}
// (a complex dtype's part), ${wide} and ${load} filled in for it (Python's string.Template).
//@head

typedef unsigned long long kt_u64;
typedef long long kt_i64;
#ifdef __CUDACC__
#define KT_FN static __device__ __forceinline__
#define KT_KERNEL extern "C" __global__ void
#define KT_LOOP(i, n) for (kt_u64 i = (kt_u64)blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += (kt_u64)gridDim.x * blockDim.x)
#define KT_FADD(a, b) __fadd_rn(a, b)
#define KT_FSUB(a, b) __fsub_rn(a, b)
#define KT_FMUL(a, b) __fmul_rn(a, b)
#define KT_FDIV(a, b) __fdiv_rn(a, b)
#define KT_DADD(a, b) __dadd_rn(a, b)
#define KT_DSUB(a, b) __dsub_rn(a, b)
#define KT_DMUL(a, b) __dmul_rn(a, b)
#define KT_DDIV(a, b) __ddiv_rn(a, b)
#define KT_F_BITS(x) __float_as_uint(x)
#define KT_BITS_F(x) __uint_as_float(x)
#define KT_D_BITS(x) ((kt_u64)__double_as_longlong(x))
#define KT_BITS_D(x) __longlong_as_double((kt_i64)(x))
static __device__ void kt_reduce(kt_u64* acc, kt_u64 n, kt_u64 first, kt_u64 m1, kt_u64 m2) {
    for (int s = 16; s > 0; s >>= 1) {
        n += __shfl_down_sync(0xffffffffu, n, s);
        kt_u64 f = __shfl_down_sync(0xffffffffu, first, s);
        kt_u64 x = __shfl_down_sync(0xffffffffu, m1, s);
        kt_u64 y = __shfl_down_sync(0xffffffffu, m2, s);
        if (f < first) first = f;
        if (x > m1) m1 = x;
        if (y > m2) m2 = y;
    }
    if ((threadIdx.x & 31u) == 0u) {
        if (n) {
            atomicAdd(acc, n);
            atomicMin(acc + 1, first);
        }
        atomicMax(acc + 2, m1);
        atomicMax(acc + 3, m2);
    }
}
#else  /* the same functions built for the host: the CPU tests run them */
#include <cstring>
#define KT_FN static inline
#define KT_KERNEL extern "C" void
#define KT_LOOP(i, n) for (kt_u64 i = 0; i < (n); ++i)
#define KT_FADD(a, b) ((float)((a) + (b)))
#define KT_FSUB(a, b) ((float)((a) - (b)))
#define KT_FMUL(a, b) ((float)((a) * (b)))
#define KT_FDIV(a, b) ((float)((a) / (b)))
#define KT_DADD(a, b) ((a) + (b))
#define KT_DSUB(a, b) ((a) - (b))
#define KT_DMUL(a, b) ((a) * (b))
#define KT_DDIV(a, b) ((a) / (b))
static inline unsigned int KT_F_BITS(float x) { unsigned int u; std::memcpy(&u, &x, 4); return u; }
static inline float KT_BITS_F(unsigned int u) { float x; std::memcpy(&x, &u, 4); return x; }
static inline kt_u64 KT_D_BITS(double x) { kt_u64 u; std::memcpy(&u, &x, 8); return u; }
static inline double KT_BITS_D(kt_u64 u) { double x; std::memcpy(&x, &u, 8); return x; }
static void kt_reduce(kt_u64* acc, kt_u64 n, kt_u64 first, kt_u64 m1, kt_u64 m2) {
    acc[0] += n;
    if (first < acc[1]) acc[1] = first;
    if (m1 > acc[2]) acc[2] = m1;
    if (m2 > acc[3]) acc[3] = m2;
}
#endif

/* per thread: how many are bad, the first bad index, and two maxima as ordered bit patterns */
#define KT_BEGIN kt_u64 kt_n = 0, kt_first = ~0ULL, kt_m1 = 0, kt_m2 = 0;
#define KT_TAKE(bad, i, x, y) { \
    kt_u64 kt_x = (x), kt_y = (y); \
    if (bad) { if (!kt_n) kt_first = (i); kt_n++; } \
    if (kt_x > kt_m1) kt_m1 = kt_x; \
    if (kt_y > kt_m2) kt_m2 = kt_y; }
#define KT_END(acc) kt_reduce(acc, kt_n, kt_first, kt_m1, kt_m2);

KT_FN float kt_fabsf(float x) { return KT_BITS_F(KT_F_BITS(x) & 0x7fffffffu); }
KT_FN int kt_isinff(float x) { return (KT_F_BITS(x) & 0x7fffffffu) == 0x7f800000u; }
KT_FN int kt_finitef(float x) { return (KT_F_BITS(x) & 0x7f800000u) != 0x7f800000u; }
KT_FN double kt_fabs(double x) { return KT_BITS_D(KT_D_BITS(x) & 0x7fffffffffffffffULL); }
KT_FN int kt_isinf(double x) { return (KT_D_BITS(x) & 0x7fffffffffffffffULL) == 0x7ff0000000000000ULL; }
KT_FN int kt_finite(double x) { return (KT_D_BITS(x) & 0x7ff0000000000000ULL) != 0x7ff0000000000000ULL; }
KT_FN int kt_isnan(double x) { return x != x; }

/* IEEE half <-> float as numpy converts them (a half operation is the float one, rounded to half) */
KT_FN float kt_h2f(unsigned short h) {
    unsigned int sign = ((unsigned int)h & 0x8000u) << 16;
    unsigned int e = ((unsigned int)h >> 10) & 0x1fu, m = (unsigned int)h & 0x3ffu;
    if (e == 0u) {
        float f = KT_FMUL((float)m, 5.9604644775390625e-8f); /* m * 2^-24, exact */
        return sign ? -f : f;
    }
    if (e == 31u) return KT_BITS_F(sign | 0x7f800000u | (m << 13));
    return KT_BITS_F(sign | ((e + 112u) << 23) | (m << 13));
}
KT_FN unsigned short kt_f2h(float f) {
    unsigned int x = KT_F_BITS(f);
    unsigned int sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax > 0x7f800000u) return (unsigned short)(sign | 0x7e00u);
    if (ax >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u); /* 65520 and up round to inf */
    if (ax >= 0x38800000u) { /* a normal half */
        unsigned int h = ((((ax >> 23) - 112u) << 10) | ((ax >> 13) & 0x3ffu));
        unsigned int rest = ax & 0x1fffu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) h += 1u;
        return (unsigned short)(sign | h);
    }
    if (ax < 0x33000000u) return (unsigned short)sign; /* up to 2^-25: zero */
    unsigned int full = (ax & 0x7fffffu) | 0x800000u, shift = 126u - (ax >> 23);
    unsigned int h = full >> shift, rest = full & ((1u << shift) - 1u), half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (h & 1u))) h += 1u;
    return (unsigned short)(sign | h);
}
KT_FN float kt_h(float x) { return kt_h2f(kt_f2h(x)); }

/* compare._errors's first pass, in the output's own type: `need` when the element is not within
   atol + rtol * |ref| (NaN included) or the reference is infinite; then the exact pass decides.
   kept: the reference's bounds are kept (compare._Bounds: a zero reference scales by inf), else
   compare._close_piece (a relative error that is not finite counts 0). */
KT_FN void kt_elem_fast_f64(double o, double r, double a, double t, kt_i64 kept, int* need, double* d, double* q) {
    double df = kt_fabs(KT_DSUB(o, r)), s = kt_fabs(r);
    double bound = KT_DADD(a, KT_DMUL(t, s));
    *need = !(df <= bound) || kt_isinf(r);
    double rel;
    if (kept) {
        rel = KT_DDIV(df, s == 0.0 ? KT_BITS_D(0x7ff0000000000000ULL) : s);
    } else {
        rel = KT_DDIV(df, s);
        if (!kt_finite(rel)) rel = 0.0;
    }
    *d = df;
    *q = rel;
}
KT_FN void kt_elem_fast_f32(float o, float r, double a64, double t64, kt_i64 kept, int* need, double* d, double* q) {
    float a = (float)a64, t = (float)t64; /* exact: the caller rounded them to float32 */
    float df = kt_fabsf(KT_FSUB(o, r)), s = kt_fabsf(r);
    float bound = KT_FADD(a, KT_FMUL(t, s));
    *need = !(df <= bound) || kt_isinff(r);
    float rel;
    if (kept) {
        rel = KT_FDIV(df, s == 0.0f ? KT_BITS_F(0x7f800000u) : s);
    } else {
        rel = KT_FDIV(df, s);
        if (!kt_finitef(rel)) rel = 0.0f;
    }
    *d = (double)df;
    *q = (double)rel;
}
KT_FN void kt_elem_fast_f16(unsigned short ob, unsigned short rb, double a64, double t64, kt_i64 kept, int* need, double* d, double* q) {
    float o = kt_h2f(ob), r = kt_h2f(rb), a = (float)a64, t = (float)t64;
    float df = kt_fabsf(kt_h(KT_FSUB(o, r))), s = kt_fabsf(r);
    float bound = kt_h(KT_FADD(a, kt_h(KT_FMUL(t, s))));
    *need = !(df <= bound) || kt_isinff(r);
    float rel;
    if (kept) {
        rel = kt_h(KT_FDIV(df, s == 0.0f ? KT_BITS_F(0x7f800000u) : s));
    } else {
        rel = kt_h(KT_FDIV(df, s));
        if (!kt_finitef(rel)) rel = 0.0f;
    }
    *d = (double)df;
    *q = (double)rel;
}

/* compare._exact: in float64, NaN and inf allowed where the reference has them */
KT_FN void kt_elem_exact(double o, double r, double a, double t, int* bad, double* d, double* q) {
    int finite_ref = kt_finite(r);
    int same_nonfinite = !finite_ref && ((kt_isnan(r) && kt_isnan(o)) || r == o);
    double diff = kt_fabs(KT_DSUB(o, r));
    int close = finite_ref && diff <= KT_DADD(a, KT_DMUL(t, kt_fabs(finite_ref ? r : 0.0)));
    *bad = !(same_nonfinite || close);
    if (kt_finite(diff)) {
        double s = kt_fabs(r), tiny = 2.2250738585072014e-308;
        *d = diff;
        *q = KT_DDIV(diff, s > tiny ? s : tiny);
    } else {
        *d = 0.0;
        *q = 0.0;
    }
}

/* compare._errors's integer path: |out - ref| in int64 as numpy wraps it; bad where it exceeds
   atol, compared exactly when atol is an integer (int_atol != 0), else in float64 */
KT_FN void kt_elem_int(kt_i64 o, kt_i64 r, double atol, double int_atol, kt_i64 atol_i, int* bad, kt_i64* d) {
    kt_u64 diff = (kt_u64)o - (kt_u64)r;
    kt_i64 ad = (kt_i64)diff < 0 ? (kt_i64)(0ULL - diff) : (kt_i64)diff;
    *bad = int_atol != 0.0 ? ad > atol_i : (double)ad > atol;
    *d = ad;
}
//@float

KT_KERNEL kt_fast_${s}(const ${t}* out, const ${t}* ref, kt_u64 n, double a, double b, kt_i64 k, kt_u64* acc) {
    KT_BEGIN
    KT_LOOP(i, n) {
        int bad;
        double d, q;
        kt_elem_fast_${s}(out[i], ref[i], a, b, k, &bad, &d, &q);
        KT_TAKE(bad, i, KT_D_BITS(d), KT_D_BITS(q))
    }
    KT_END(acc)
}
KT_KERNEL kt_exact_${s}(const ${t}* out, const ${t}* ref, kt_u64 n, double a, double b, kt_i64 k, kt_u64* acc) {
    KT_BEGIN
    KT_LOOP(i, n) {
        int bad;
        double d, q;
        kt_elem_exact(${wide}(out[i]), ${wide}(ref[i]), a, b, &bad, &d, &q);
        KT_TAKE(bad, i, KT_D_BITS(d), KT_D_BITS(q))
    }
    KT_END(acc)
}
//@int

KT_FN kt_i64 kt_load_${s}(const ${t}* p, kt_u64 i) { return ${load}; }
KT_KERNEL kt_int_${s}(const ${t}* out, const ${t}* ref, kt_u64 n, double a, double b, kt_i64 k, kt_u64* acc) {
    KT_BEGIN
    KT_LOOP(i, n) {
        int bad;
        kt_i64 d;
        kt_elem_int(kt_load_${s}(out, i), kt_load_${s}(ref, i), a, b, k, &bad, &d);
        KT_TAKE(bad, i, (kt_u64)d ^ 0x8000000000000000ULL, 0ULL)
    }
    KT_END(acc)
}
//@complex

KT_KERNEL kt_fast_${s}(const ${t}* out, const ${t}* ref, kt_u64 n, double a, double b, kt_i64 k, kt_u64* acc) {
    KT_BEGIN
    KT_LOOP(i, n) {
        int bad, bad2;
        double d, q, d2, q2;
        kt_elem_fast_${p}(out[2 * i], ref[2 * i], a, b, k, &bad, &d, &q);
        kt_elem_fast_${p}(out[2 * i + 1], ref[2 * i + 1], a, b, k, &bad2, &d2, &q2);
        kt_u64 x = KT_D_BITS(d), x2 = KT_D_BITS(d2), y = KT_D_BITS(q), y2 = KT_D_BITS(q2);
        KT_TAKE(bad || bad2, i, x > x2 ? x : x2, y > y2 ? y : y2)
    }
    KT_END(acc)
}
KT_KERNEL kt_exact_${s}(const ${t}* out, const ${t}* ref, kt_u64 n, double a, double b, kt_i64 k, kt_u64* acc) {
    KT_BEGIN
    KT_LOOP(i, n) {
        int bad, bad2;
        double d, q, d2, q2;
        kt_elem_exact(${wide}(out[2 * i]), ${wide}(ref[2 * i]), a, b, &bad, &d, &q);
        kt_elem_exact(${wide}(out[2 * i + 1]), ${wide}(ref[2 * i + 1]), a, b, &bad2, &d2, &q2);
        kt_u64 x = KT_D_BITS(d), x2 = KT_D_BITS(d2), y = KT_D_BITS(q), y2 = KT_D_BITS(q2);
        KT_TAKE(bad || bad2, i, x > x2 ? x : x2, y > y2 ? y : y2)
    }
    KT_END(acc)
}
