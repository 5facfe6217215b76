// shape modelled on: ggml-cuda's get_rows (getrows.cu: destination row i10 is row src1[i10] of src0, converted to float; int64 sizes and row strides in elements, so src0 may be a view whose rows lie s01 apart; x across the columns, y across the selected rows), templated on the source type as ggml's is (the destination float here), written from scratch for kt-tui's corpus
template <typename src_t>
__global__ void k_get_rows(const src_t *src0, const int *src1, float *dst, const long long ne00, const long long ne10,
                           const long long s01, const long long s1)
{
    const long long i00 = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long i10 = (long long)blockIdx.y * blockDim.y + threadIdx.y;
    if (i00 >= ne00 || i10 >= ne10)
        return;
    const long long i01 = src1[i10];
    dst[i10 * s1 + i00] = (float)src0[i01 * s01 + i00];
}
