// shape modelled on: the negative log-likelihood loss with per-class weights and a per-token loss mask (PyTorch's nll_loss forward with weight and reduction "none", ATen's nll_loss_forward_no_reduce kernel, Megatron-LM's loss_mask applied to token losses): a thread per sample, log-probability rows ld floats apart, int64 class labels below nclass, positive class weights, masked samples given 0, written from scratch for kt-tui's corpus
__global__ void nll_loss_masked(const float *logp, int ld, const long long *target, const float *weight, const unsigned char *mask, int n, int nclass, float *loss)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (!mask[i]) {
        loss[i] = 0.0f;
        return;
    }
    const long long t = target[i];
    loss[i] = -weight[t] * logp[(size_t)i * ld + t];
}
