// shape modelled on: OpenCV's cv::cuda::resize INTER_LINEAR device kernel (resize_linear<T>: destination pixel (x, y) samples the source at ((x + 0.5) * fx - 0.5, (y + 0.5) * fy - 0.5), clamped to the image, blending its four neighbours, then saturates to the pixel type; fx = src.cols / dst.cols), templated on the pixel type, images with rows `step` bytes apart, written from scratch for kt-tui's corpus
__device__ __forceinline__ unsigned char to_pixel(float v, unsigned char)
{
    return (unsigned char)__float2int_rn(fminf(fmaxf(v, 0.0f), 255.0f));
}

__device__ __forceinline__ float to_pixel(float v, float) { return v; }

template <typename T>
__global__ void resize_linear(const T *src, size_t src_step, int src_rows, int src_cols, T *dst, size_t dst_step,
                              int dst_rows, int dst_cols, float fy, float fx)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= dst_cols || y >= dst_rows)
        return;
    const float sx = fmaxf((x + 0.5f) * fx - 0.5f, 0.0f);
    const float sy = fmaxf((y + 0.5f) * fy - 0.5f, 0.0f);
    const int x0 = min((int)sx, src_cols - 1);
    const int y0 = min((int)sy, src_rows - 1);
    const int x1 = min(x0 + 1, src_cols - 1);
    const int y1 = min(y0 + 1, src_rows - 1);
    const float ax = sx - x0;
    const float ay = sy - y0;
    const T *row0 = (const T *)((const char *)src + y0 * src_step);
    const T *row1 = (const T *)((const char *)src + y1 * src_step);
    const float top = row0[x0] + (row0[x1] - row0[x0]) * ax;
    const float bottom = row1[x0] + (row1[x1] - row1[x0]) * ax;
    T *out = (T *)((char *)dst + y * dst_step);
    out[x] = to_pixel(top + (bottom - top) * ay, T());
}
