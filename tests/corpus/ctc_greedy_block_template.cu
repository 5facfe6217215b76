// shape modelled on: greedy (best-path) CTC decoding of speech recognisers (NVIDIA NeMo's and TensorFlow's ctc_greedy_decoder: per frame the class of the largest logit, a frame's label kept when it is not the blank and differs from the previous frame's; a sequence's frames past its length padding), logits [batch, max_frames, nclasses], one block per sequence whose threads take the frames, templated on the logit type with explicit instantiations, written from scratch for kt-tui's corpus
template <typename T>
__global__ void ctc_greedy(const T *logits, const int *lengths, int batch, int max_frames, int nclasses, int blank,
                           int *best, unsigned char *keep)
{
    const int b = blockIdx.x;
    if (b >= batch)
        return;
    const int len = min(lengths[b], max_frames);
    const T *seq = logits + (size_t)b * max_frames * nclasses;
    int *ids = best + (size_t)b * max_frames;
    for (int t = threadIdx.x; t < max_frames; t += blockDim.x) {
        int arg = -1;
        if (t < len) {
            const T *row = seq + (size_t)t * nclasses;
            T top = row[0];
            arg = 0;
            for (int c = 1; c < nclasses; ++c) {
                if (row[c] > top) {
                    top = row[c];
                    arg = c;
                }
            }
        }
        ids[t] = arg;
    }
    __syncthreads();
    unsigned char *k = keep + (size_t)b * max_frames;
    for (int t = threadIdx.x; t < max_frames; t += blockDim.x) {
        const int id = ids[t];
        k[t] = id >= 0 && id != blank && (t == 0 || ids[t - 1] != id);
    }
}

template __global__ void ctc_greedy<float>(const float *, const int *, int, int, int, int, int *, unsigned char *);
template __global__ void ctc_greedy<double>(const double *, const int *, int, int, int, int, int *, unsigned char *);
