// shape modelled on: Caffe's col2im_gpu_kernel (the adjoint of im2col, a convolution's input gradient: one thread per element of the channels x height x width image sums every column-buffer entry its kernel windows copied it to; the column buffer channels * kernel_h * kernel_w rows of height_col * width_col, height_col = (height + 2 * pad_h - (dilation_h * (kernel_h - 1) + 1)) / stride_h + 1 and likewise width_col), templated on the element type with explicit instantiations, written from scratch for kt-tui's corpus
template <typename T>
__global__ void col2im(int n, const T *data_col, int height, int width, int kernel_h, int kernel_w, int pad_h,
                       int pad_w, int stride_h, int stride_w, int dilation_h, int dilation_w, int height_col,
                       int width_col, T *data_im)
{
    const int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= n)
        return;
    const int w_im = index % width + pad_w;
    const int h_im = (index / width) % height + pad_h;
    const int c_im = index / (width * height);
    const int extent_w = (kernel_w - 1) * dilation_w + 1;
    const int extent_h = (kernel_h - 1) * dilation_h + 1;
    const int w_col_start = w_im < extent_w ? 0 : (w_im - extent_w) / stride_w + 1;
    const int w_col_end = min(w_im / stride_w + 1, width_col);
    const int h_col_start = h_im < extent_h ? 0 : (h_im - extent_h) / stride_h + 1;
    const int h_col_end = min(h_im / stride_h + 1, height_col);
    T val = 0;
    for (int h_col = h_col_start; h_col < h_col_end; ++h_col) {
        for (int w_col = w_col_start; w_col < w_col_end; ++w_col) {
            int h_k = h_im - h_col * stride_h;
            int w_k = w_im - w_col * stride_w;
            if (h_k % dilation_h == 0 && w_k % dilation_w == 0) {
                h_k /= dilation_h;
                w_k /= dilation_w;
                const size_t col = (((size_t)(c_im * kernel_h + h_k) * kernel_w + w_k) * height_col + h_col) * width_col + w_col;
                val += data_col[col];
            }
        }
    }
    data_im[index] = val;
}

template __global__ void col2im<float>(int, const float *, int, int, int, int, int, int, int, int, int, int, int, int,
                                       float *);
template __global__ void col2im<double>(int, const double *, int, int, int, int, int, int, int, int, int, int, int,
                                        int, double *);
