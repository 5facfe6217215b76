// shape modelled on: the brute-force distance matrix of exact k-NN search (Garcia et al.'s kNN-CUDA, the L2 tile FAISS computes before its k-selection): squared distances from every 3-D query to every reference point, the references staged in shared memory a block at a time, the distance matrix's rows ld apart, one thread per query, templated on the coordinate type with explicit instantiations, written from scratch for kt-tui's corpus
#define TILE 128

template <typename T>
__global__ void knn_dist_tile(const T *queries, const T *refs, int nq, int nr, int ld, T *dist)
{
    __shared__ T tile[TILE * 3];
    const int q = blockIdx.x * blockDim.x + threadIdx.x;
    T qx = 0, qy = 0, qz = 0;
    if (q < nq) {
        qx = queries[(size_t)q * 3 + 0];
        qy = queries[(size_t)q * 3 + 1];
        qz = queries[(size_t)q * 3 + 2];
    }
    for (int start = 0; start < nr; start += blockDim.x) {
        const int r = start + threadIdx.x;
        if (r < nr) {
            tile[threadIdx.x * 3 + 0] = refs[(size_t)r * 3 + 0];
            tile[threadIdx.x * 3 + 1] = refs[(size_t)r * 3 + 1];
            tile[threadIdx.x * 3 + 2] = refs[(size_t)r * 3 + 2];
        }
        __syncthreads();
        const int count = min((int)blockDim.x, nr - start);
        if (q < nq) {
            for (int k = 0; k < count; ++k) {
                const T dx = qx - tile[k * 3 + 0];
                const T dy = qy - tile[k * 3 + 1];
                const T dz = qz - tile[k * 3 + 2];
                dist[(size_t)q * ld + start + k] = dx * dx + dy * dy + dz * dz;
            }
        }
        __syncthreads();
    }
}

template __global__ void knn_dist_tile<float>(const float *, const float *, int, int, int, float *);
template __global__ void knn_dist_tile<double>(const double *, const double *, int, int, int, double *);
