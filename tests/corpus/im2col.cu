// shape modelled on: Caffe's im2col_gpu_kernel (one thread per (channel, output row, output column) of the column buffer, copying its kernel_h x kernel_w window of the zero-padded image, column rows height_col * width_col apart; the output size (height + 2 * pad - kernel) / stride + 1 per axis), written from scratch for kt-tui's corpus
__global__ void im2col_kernel(const float *data_im, const int channels, const int height, const int width,
                              const int kernel_h, const int kernel_w, const int pad_h, const int pad_w,
                              const int stride_h, const int stride_w, float *data_col)
{
    const int height_col = (height + 2 * pad_h - kernel_h) / stride_h + 1;
    const int width_col = (width + 2 * pad_w - kernel_w) / stride_w + 1;
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= channels * height_col * width_col)
        return;
    const int w_out = index % width_col;
    const int h_index = index / width_col;
    const int h_out = h_index % height_col;
    const int c_im = h_index / height_col;
    const int h_in = h_out * stride_h - pad_h;
    const int w_in = w_out * stride_w - pad_w;
    float *col = data_col + ((size_t)c_im * kernel_h * kernel_w * height_col + h_out) * width_col + w_out;
    const float *im = data_im + (size_t)c_im * height * width;
    for (int i = 0; i < kernel_h; ++i) {
        for (int j = 0; j < kernel_w; ++j) {
            const int h = h_in + i;
            const int w = w_in + j;
            *col = (h >= 0 && w >= 0 && h < height && w < width) ? im[h * width + w] : 0.0f;
            col += height_col * width_col;
        }
    }
}
