// shape modelled on: PyTorch ATen's max_pool2d_with_indices forward (aten/src/ATen/native/cuda/DilatedMaxPool2d.cu, max_pool_forward_nchw: one thread per output element of N x C x pooled_height x pooled_width, a kernel_h x kernel_w window with stride, zero padding and dilation, NaN propagated, the argmax kept as an int64 offset within the input plane), as cuDNN's padded pooling, written from scratch for kt-tui's corpus
__global__ void max_pool_forward_nchw(const float *bottom_data, int num, int channels, int height, int width,
                                      int pooled_height, int pooled_width, int kernel_h, int kernel_w, int stride_h,
                                      int stride_w, int pad_h, int pad_w, int dilation_h, int dilation_w,
                                      float *top_data, long long *top_mask)
{
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= num * channels * pooled_height * pooled_width)
        return;
    const int pw = index % pooled_width;
    const int ph = (index / pooled_width) % pooled_height;
    const int plane = index / (pooled_width * pooled_height);
    int hstart = ph * stride_h - pad_h;
    int wstart = pw * stride_w - pad_w;
    const int hend = min(hstart + (kernel_h - 1) * dilation_h + 1, height);
    const int wend = min(wstart + (kernel_w - 1) * dilation_w + 1, width);
    while (hstart < 0)
        hstart += dilation_h;
    while (wstart < 0)
        wstart += dilation_w;
    const float *plane_data = bottom_data + (size_t)plane * height * width;
    float maxval = -INFINITY;
    long long maxidx = hstart * width + wstart;
    for (int h = hstart; h < hend; h += dilation_h) {
        for (int w = wstart; w < wend; w += dilation_w) {
            const float val = plane_data[h * width + w];
            if (val > maxval || isnan(val)) {
                maxval = val;
                maxidx = h * width + w;
            }
        }
    }
    top_data[index] = maxval;
    top_mask[index] = maxidx;
}
