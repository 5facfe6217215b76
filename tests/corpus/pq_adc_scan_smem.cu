// shape modelled on: the asymmetric-distance scan of product-quantization indexes (FAISS's IndexIVFPQ / GPU PQScanMultiPassNoPrecomputed: each database vector stored as M one-byte codes, one per sub-quantizer of KSUB centroids; a query's distance to it is the sum over m of its lookup table entry lut[m][code[m]]), one block row per query on blockIdx.y whose threads first stage that query's M x KSUB table in dynamic shared memory, then one thread per code on x; distances written to rows ld_dist apart, written from scratch for kt-tui's corpus
// launched with M * KSUB floats of dynamic shared memory
#define KSUB 256

__global__ void pq_adc_scan(const float *luts, int nq, const unsigned char *codes, int ncodes, int M, float *dist,
                            int ld_dist)
{
    extern __shared__ float lut[];
    const int q = blockIdx.y;
    if (q >= nq)
        return;
    const float *qlut = luts + (size_t)q * M * KSUB;
    for (int t = threadIdx.x; t < M * KSUB; t += blockDim.x)
        lut[t] = qlut[t];
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= ncodes)
        return;
    const unsigned char *code = codes + (size_t)i * M;
    float d = 0.0f;
    for (int m = 0; m < M; ++m)
        d += lut[m * KSUB + code[m]];
    dist[(size_t)q * ld_dist + i] = d;
}
