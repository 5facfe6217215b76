// shape modelled on: picking each cluster's exemplar after a k-means pass (the point nearest its cluster's centroid, as k-medoids initialisations and cluster summaries take it), one warp per point whose lanes sum the squared distance to its own cluster's centroid with a xor-shuffle, then the packed argmin idiom of GPU nearest-neighbour codes: a 64-bit atomicMin on (distance bits << 32 | point index), ties going to the lower index, written from scratch for kt-tui's corpus
__global__ void nearest_to_centroid(const float *points, const float *centroids, const int *labels, int npoints,
                                    int dim, long long *best)
{
    const int p = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = threadIdx.x % 32;
    if (p >= npoints)
        return;
    const int c = labels[p];
    const float *v = points + (size_t)p * dim;
    const float *m = centroids + (size_t)c * dim;
    float d2 = 0.0f;
    for (int k = lane; k < dim; k += 32) {
        const float t = v[k] - m[k];
        d2 += t * t;
    }
    for (int off = 16; off > 0; off /= 2)
        d2 += __shfl_xor_sync(0xffffffffu, d2, off);
    if (lane == 0) {
        // a non-negative float's bits order as the float does
        const long long key = ((long long)__float_as_int(d2) << 32) | (unsigned int)p;
        atomicMin(&best[c], key);
    }
}
