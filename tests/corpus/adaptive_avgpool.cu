// shape modelled on: PyTorch's adaptive_average_pool CUDA kernel (AdaptiveAveragePooling.cu: one block column per NCHW plane on blockIdx.x, output rows strided over blockIdx.y / threadIdx.y, columns over threadIdx.x; output cell (oh, ow) averages input rows floor(oh * isizeH / osizeH) to ceil((oh + 1) * isizeH / osizeH) - 1 and likewise columns, windows of varying size that may overlap), written from scratch for kt-tui's corpus
__global__ void adaptive_avg_pool2d(const float *input, float *output, int isizeH, int isizeW, int osizeH, int osizeW,
                                    int nplanes)
{
    int plane = blockIdx.x;
    if (plane >= nplanes)
        return;
    const float *in_plane = input + (size_t)plane * isizeH * isizeW;
    float *out_plane = output + (size_t)plane * osizeH * osizeW;
    for (int oh = blockIdx.y * blockDim.y + threadIdx.y; oh < osizeH; oh += blockDim.y * gridDim.y) {
        int hstart = oh * isizeH / osizeH;
        int hend = ((oh + 1) * isizeH + osizeH - 1) / osizeH;
        for (int ow = threadIdx.x; ow < osizeW; ow += blockDim.x) {
            int wstart = ow * isizeW / osizeW;
            int wend = ((ow + 1) * isizeW + osizeW - 1) / osizeW;
            float sum = 0.0f;
            for (int ih = hstart; ih < hend; ih++)
                for (int iw = wstart; iw < wend; iw++)
                    sum += in_plane[ih * isizeW + iw];
            out_plane[oh * osizeW + ow] = sum / ((hend - hstart) * (wend - wstart));
        }
    }
}
