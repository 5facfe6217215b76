// shape modelled on: row-wise cosine similarity of paired embeddings (PyTorch's F.cosine_similarity along dim 1 with its eps clamp, FAISS's / cuML's pairwise row dot products in sub-warp groups): eight lanes per pair of rows, a and b row-major with leading dimensions lda and ldb, dot and squared norms reduced by shuffles within the 8-lane group, out = ab / sqrt(max(aa * bb, eps * eps)), written from scratch for kt-tui's corpus
#define LANES 8

__global__ void cosine_pairs(const float *a, int lda, const float *b, int ldb, int npairs, int dim, float eps,
                             float *out)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int pair = t / LANES;
    const int lane = t % LANES;
    if (pair >= npairs)
        return;
    const unsigned int group = 0xffu << (threadIdx.x & 31 & ~(LANES - 1));
    const float *pa = a + (size_t)pair * lda;
    const float *pb = b + (size_t)pair * ldb;
    float ab = 0.0f, aa = 0.0f, bb = 0.0f;
    for (int k = lane; k < dim; k += LANES) {
        const float u = pa[k], w = pb[k];
        ab += u * w;
        aa += u * u;
        bb += w * w;
    }
    for (int off = LANES / 2; off > 0; off /= 2) {
        ab += __shfl_xor_sync(group, ab, off, LANES);
        aa += __shfl_xor_sync(group, aa, off, LANES);
        bb += __shfl_xor_sync(group, bb, off, LANES);
    }
    if (lane == 0)
        out[pair] = ab / sqrtf(fmaxf(aa * bb, eps * eps));
}
