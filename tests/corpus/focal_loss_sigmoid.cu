// shape modelled on: the sigmoid focal loss of RetinaNet (Lin et al.; torchvision's sigmoid_focal_loss, Detectron2's and MMDetection's fused sigmoid focal loss kernels): a thread per (anchor, class) logit, a byte target of 0 or 1, the numerically stable binary cross-entropy scaled by alpha_t * (1 - p_t)^gamma, reduction "none", written from scratch for kt-tui's corpus
__global__ void sigmoid_focal_loss(const float *logits, const unsigned char *targets, int n, float alpha, float gamma, float *loss)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const float x = logits[i];
    const float t = targets[i] ? 1.0f : 0.0f;
    const float p = 1.0f / (1.0f + expf(-x));
    // log(1 + e^x) - x * t without overflow
    const float ce = fmaxf(x, 0.0f) - x * t + log1pf(expf(-fabsf(x)));
    const float p_t = p * t + (1.0f - p) * (1.0f - t);
    const float alpha_t = alpha * t + (1.0f - alpha) * (1.0f - t);
    loss[i] = alpha_t * powf(1.0f - p_t, gamma) * ce;
}
