// shape modelled on: naive "valid" 2-D convolution / correlation kernels with the filter size as arguments (e.g. PolyBench-GPU 2DConvolution generalised, Caffe im2col-free teaching kernels), written from scratch for kt-tui's corpus
__global__ void conv2d_valid(const float *img, const float *filt, float *out, int w, int h, int fw, int fh)
{
    int out_w = w - fw + 1;
    int out_h = h - fh + 1;
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < out_w && y < out_h) {
        float s = 0.0f;
        for (int r = 0; r < fh; r++)
            for (int c = 0; c < fw; c++)
                s += img[(y + r) * w + x + c] * filt[r * fw + c];
        out[y * out_w + x] = s;
    }
}
