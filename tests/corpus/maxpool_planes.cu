// shape modelled on: Caffe MaxPoolForward and teaching pooling kernels (non-overlapping f x f windows, output w / f by h / f, one plane per blockIdx.z), written from scratch for kt-tui's corpus
__global__ void maxpool(float *out, const float *in, int w, int h, int planes, int f)
{
    int ow = w / f, oh = h / f;
    int ox = blockIdx.x * blockDim.x + threadIdx.x;
    int oy = blockIdx.y * blockDim.y + threadIdx.y;
    int p = blockIdx.z;
    if (ox < ow && oy < oh && p < planes) {
        const float *src = in + (size_t)p * w * h + (size_t)oy * f * w + ox * f;
        float m = src[0];
        for (int dy = 0; dy < f; dy++)
            for (int dx = 0; dx < f; dx++)
                m = fmaxf(m, src[dy * w + dx]);
        out[((size_t)p * oh + oy) * ow + ox] = m;
    }
}
