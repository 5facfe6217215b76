// shape modelled on: index_add_ along dim 0 (PyTorch's index_add_cuda_ / indexFuncLargeIndex, JAX's scatter-add of rows, DGL's / PyG's scatter of messages into destination rows): out[index[i], c] += alpha * src[i, c], a 2-D grid with x over the columns and y over the index entries, float atomicAdd because indices repeat, rows of out and src ld_out and ld_src elements apart, 64-bit indices, written from scratch for kt-tui's corpus
__global__ void index_add_rows(float *out, int ld_out, const long long *index, const float *src, int ld_src, int nidx,
                               int cols, float alpha)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (c >= cols || i >= nidx)
        return;
    const long long r = index[i];
    atomicAdd(&out[r * ld_out + c], alpha * src[(size_t)i * ld_src + c]);
}
