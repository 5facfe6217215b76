// shape modelled on: gathering the rows a device-side filter selected, whose count never comes back to the host (RAPIDS cuDF's gather after apply_boolean_mask / copy_if with the output size left on the device, cuGraph's frontier gathers, CUB's DeviceSelect feeding a gather through d_num_selected_out): a 2-D grid with x across the ncols columns and a grid-stride loop on y over the *count selected rows, map naming the source row of each, rows of ncols floats, written from scratch for kt-tui's corpus
__global__ void gather_rows_count(const int *count, const int *map, const float *src, int ncols, float *dst)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= ncols)
        return;
    const int nsel = *count;
    for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < nsel; i += gridDim.y * blockDim.y)
        dst[(size_t)i * ncols + c] = src[(size_t)map[i] * ncols + c];
}
