// shape modelled on: majority-vote signSGD with momentum of compressed distributed training (Bernstein et al.'s signSGD / Signum with majority vote, as the 1-bit gradient compressors of BytePS and Horovod apply it at the server: each worker sends sign(g) as -1, 0 or +1 in a signed byte, the momentum follows the workers' mean sign, the step is lr times the momentum's sign plus decoupled weight decay), the workers' sign vectors worker_stride bytes apart, one thread per parameter, written from scratch for kt-tui's corpus
__global__ void sign_vote_update(float *param, float *mom, const signed char *signs, int nparams, int nworkers,
                                 int worker_stride, float lr, float beta, float weight_decay, signed char *vote)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nparams)
        return;
    int sum = 0;
    for (int w = 0; w < nworkers; ++w)
        sum += signs[(size_t)w * worker_stride + i];
    vote[i] = (signed char)((sum > 0) - (sum < 0));
    const float m = beta * mom[i] + (1.0f - beta) * (float)sum / (float)nworkers;
    mom[i] = m;
    const float step = (float)((m > 0.0f) - (m < 0.0f));
    const float p = param[i];
    param[i] = p - lr * (step + weight_decay * p);
}
