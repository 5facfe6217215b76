// shape modelled on: Caffe's MaxPoolForward (pooling.cu: one thread per pooled output, a flat index split by / and %), with non-overlapping pool x pool windows, written from scratch for kt-tui's corpus
__global__ void maxpool_flat(const float *bottom, float *top, int channels, int height, int width, int pool)
{
    int pooled_h = height / pool;
    int pooled_w = width / pool;
    int index = blockIdx.x * blockDim.x + threadIdx.x;
    if (index < channels * pooled_h * pooled_w) {
        int pw = index % pooled_w;
        int ph = (index / pooled_w) % pooled_h;
        int c = index / pooled_w / pooled_h;
        const float *plane = bottom + c * height * width;
        float best = -1e30f;
        for (int h = ph * pool; h < ph * pool + pool; h++)
            for (int w = pw * pool; w < pw * pool + pool; w++)
                best = fmaxf(best, plane[h * width + w]);
        top[index] = best;
    }
}
