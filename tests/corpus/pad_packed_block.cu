// shape modelled on: unpacking variable-length batches into a padded one (FlashAttention's pad_input after varlen attention, FasterTransformer's rebuild-padding, torch.nn.utils.rnn.pad_sequence: sequence b is rows cu_seqlens[b] .. cu_seqlens[b + 1] of a packed tokens x hidden matrix, copied to the max_len x hidden slot b of the padded batch, cut at max_len, the rest filled with pad_value), one block per sequence, written from scratch for kt-tui's corpus
__global__ void pad_packed_sequences(const float *packed, const int *cu_seqlens, int batch, int max_len, int hidden,
                                     float pad_value, float *padded)
{
    const int b = blockIdx.x;
    if (b >= batch)
        return;
    const int start = cu_seqlens[b];
    const int len = min(cu_seqlens[b + 1] - start, max_len);
    float *dst = padded + (size_t)b * max_len * hidden;
    for (int i = threadIdx.x; i < max_len * hidden; i += blockDim.x) {
        const int pos = i / hidden;
        dst[i] = pos < len ? packed[(size_t)(start + pos) * hidden + i % hidden] : pad_value;
    }
}
