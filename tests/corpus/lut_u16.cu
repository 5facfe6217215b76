// shape modelled on: lookup-table kernels for raw camera frames (NPP nppiLUT, OpenCV cuda::LookUpTable; 12-bit samples in 16-bit words), written from scratch for kt-tui's corpus
__global__ void apply_lut(float *out, const unsigned short *raw, const float *lut, int levels, int npixels)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < npixels) {
        int v = raw[i];
        if (v >= levels)
            v = levels - 1;
        out[i] = lut[v];
    }
}
