// shape modelled on: 3-D average pooling of volumes without padding (PyTorch's avg_pool3d / ATen's avg_pool3d_out_cuda_frame, cuDNN's 3-D pooling, V-Net and 3-D U-Net encoders): planes volumes of d x h x w, a cubic window of kw taps with stride st, the output's sides (side - kw) / st + 1 computed in the kernel, a 3-D grid with x across the output's columns, y across its rows and z across planes times output depth, written from scratch for kt-tui's corpus
__global__ void avgpool3d(const float *in, int planes, int d, int h, int w, int kw, int st, float *out)
{
    const int od = (d - kw) / st + 1;
    const int oh = (h - kw) / st + 1;
    const int ow = (w - kw) / st + 1;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    const int pz = blockIdx.z * blockDim.z + threadIdx.z;
    if (x >= ow || y >= oh || pz >= planes * od)
        return;
    const int p = pz / od;
    const int z = pz % od;
    const float *vol = in + (size_t)p * d * h * w;
    float sum = 0.0f;
    for (int a = 0; a < kw; ++a)
        for (int b = 0; b < kw; ++b)
            for (int c = 0; c < kw; ++c)
                sum += vol[((size_t)(z * st + a) * h + (y * st + b)) * w + (x * st + c)];
    out[((size_t)pz * oh + y) * ow + x] = sum / (kw * kw * kw);
}
